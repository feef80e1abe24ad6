import { readFileSync } from 'node:fs';
import type { Request } from 'express';
import { parse, stringify } from 'yaml';
import type { HeaderParameters, PathParameters, QueryParameters, RequestBody, SuccessBody } from './operation-types';
import { expressPath, methods, routes, servedSpec, type ExpressPath, type SpecRoute } from './routes';
import { defaultSpecPath, InvalidSpecError, loadApiSpec, type LoadedSpec } from './spec';

describe('the route table', () => {
  it('gives Express every operation of the spec, at its path and method', () => {
    expect(routes).toEqual({
      startSession: '/client/users/:correlation_id/sessions',
      endSession: '/client/users/:correlation_id/sessions/current',
      listVoucherDefinitions: '/client/users/:correlation_id/voucher-definitions',
      headVoucherDefinitions: '/client/users/:correlation_id/voucher-definitions',
      updateReservation: '/client/users/:correlation_id/reservations/:reservation_token',
    });
    expect(methods).toEqual({ startSession: 'post', endSession: 'delete', listVoucherDefinitions: 'get', headVoucherDefinitions: 'head', updateReservation: 'put' });
  });

  it.each([
    ['/a', '/a'],
    ['/a/{b}', '/a/:b'],
    ['/a/{b}/c/{d_e}', '/a/:b/c/:d_e'],
  ])('writes %s as %s', (specPath, express) => {
    expect(expressPath(specPath)).toBe(express);
  });
});

describe('servedSpec: the document the app is given, checked once', () => {
  const text = readFileSync(defaultSpecPath, 'utf8');
  /** The loaded spec with its document changed by `edit` (only the document is read). */
  async function edited(edit: (document: { paths: Record<string, Record<string, unknown>> }) => void): Promise<LoadedSpec> {
    const document = parse(text) as { paths: Record<string, Record<string, unknown>> };
    edit(document);
    return { ...(await loadApiSpec()), document: parse(stringify(document)) as LoadedSpec['document'] };
  }

  it('passes the spec the server was built from', async () => {
    expect(() => servedSpec(ambient)).not.toThrow();
  });

  it.each<[string, (document: { paths: Record<string, Record<string, unknown>> }) => void, RegExp]>([
    [
      'a moved path',
      (document) => {
        document.paths['/client/members/{correlation_id}/reservations/{reservation_token}'] = document.paths['/client/users/{correlation_id}/reservations/{reservation_token}']!;
        delete document.paths['/client/users/{correlation_id}/reservations/{reservation_token}'];
      },
      /operation updateReservation is at PUT \/client\/members\/\{correlation_id\}\/reservations\/\{reservation_token\}; the server serves it at PUT \/client\/users\//,
    ],
    [
      'another method',
      (document) => {
        const item = document.paths['/client/users/{correlation_id}/sessions']!;
        item.put = item.post;
        delete item.post;
      },
      /operation startSession is at PUT /,
    ],
    [
      'a missing operation',
      (document) => void delete document.paths['/client/users/{correlation_id}/voucher-definitions']!.head,
      /operation headVoucherDefinitions is missing/,
    ],
    [
      'an operation the server does not serve',
      (document) => {
        const item = document.paths['/client/users/{correlation_id}/sessions']!;
        item.delete = { ...(item.post as object), operationId: 'forgetMember' };
      },
      /operation forgetMember \(DELETE \/client\/users\/\{correlation_id\}\/sessions\) is not one the server serves/,
    ],
  ])('stops the start on %s, naming it', async (_case, edit, message) => {
    const spec = await edited(edit);
    expect(() => servedSpec(spec)).toThrow(InvalidSpecError);
    expect(() => servedSpec(spec)).toThrow(message);
  });

  let ambient: LoadedSpec;
  beforeAll(async () => {
    ambient = await loadApiSpec();
  });
});

/*
 * Type-level: the table and the handlers' types only accept what the
 * generated types say. `npm run typecheck` fails if any `@ts-expect-error`
 * below stops being an error (scripts/spec-types-check.mjs shows the same
 * with a renamed path and fields in a copy of the spec).
 */
describe('the types derived from the spec', () => {
  it('accept the spec route of each operation, and no other', () => {
    const right: SpecRoute<'updateReservation'> = { method: 'put', path: '/client/users/{correlation_id}/reservations/{reservation_token}' };
    // @ts-expect-error a path the spec does not have
    const renamed: SpecRoute<'updateReservation'> = { method: 'put', path: '/client/members/{correlation_id}/reservations/{reservation_token}' };
    // @ts-expect-error a method the operation is not at
    const otherMethod: SpecRoute<'updateReservation'> = { method: 'post', path: '/client/users/{correlation_id}/reservations/{reservation_token}' };
    // @ts-expect-error another operation's route
    const otherOperation: SpecRoute<'listVoucherDefinitions'> = { method: 'head', path: '/client/users/{correlation_id}/voucher-definitions' };
    const express: ExpressPath<typeof right.path> = '/client/users/:correlation_id/reservations/:reservation_token';
    expect([right, renamed, otherMethod, otherOperation, express]).toHaveLength(5);
  });

  it("type the handlers' parameters, body and answer by the spec's names", () => {
    const params: PathParameters<'updateReservation'> = { correlation_id: 'm-alice', reservation_token: 'rt-1' };
    // @ts-expect-error the spec calls it reservation_token
    const camelCase: PathParameters<'updateReservation'> = { correlation_id: 'm-alice', reservationToken: 'rt-1' };
    const query: QueryParameters<'listVoucherDefinitions'> = { businessUnit: 'LCL' };
    // @ts-expect-error Start Session defines no query parameter
    const noQuery: QueryParameters<'startSession'> = { businessUnit: 'LCL' };
    const header: HeaderParameters<'startSession'>['X-Identifier-Type'] = 'EMAIL';
    // @ts-expect-error not one of the spec's identifier types
    const badHeader: HeaderParameters<'startSession'>['X-Identifier-Type'] = 'USERNAME';
    const body: RequestBody<'updateReservation'> = { reservationAmount: 1 };
    // @ts-expect-error a field the spec does not define
    const unknownField: RequestBody<'updateReservation'> = { reservationAmount: 1, amount: 1 };
    // @ts-expect-error the answer's sessionToken is required
    const answer: SuccessBody<'startSession'> = { sessionId: 's', identifierType: 'EMAIL', expiresAt: '2030-01-01T00:00:00.000Z' };
    const noBody: (req: Request<never, never, RequestBody<'startSession'>>) => never = (req) => req.body;
    expect([params, camelCase, query, noQuery, header, badHeader, body, unknownField, answer, noBody]).toHaveLength(10);
  });
});
