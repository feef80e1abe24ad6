import type { AppError } from '../../domain/errors';
import type { SessionRecord } from '../../domain/model';
import { defaultWalletLimits } from '../../domain/limits';
import { loadApiSpec } from '../../http/spec';
import { catalogueItemRecord, clientRecord, sessionRecord } from '../../store/test-support/records';
import { catalogueItemsMax, documentedAnswerToRefusedBody, productCodeMaxLength, quantityMax } from './body-rules';
import { createReservationService } from './service';

const pair = { redemptionId: 'rd-100', redeemerId: 'm-alice' };
const withItems = (items: unknown[]): Record<string, unknown> => ({ reservationAmount: 4000, ...pair, catalogueItems: items });
const schemaMismatch = 'Request does not match the API specification';

/** A catalogue of these product codes, recording the codes each lookup asked for. */
function catalogueOf(codes: readonly string[]) {
  const lookups: string[][] = [];
  return {
    lookups,
    findCatalogueItems: async (asked: string[]) => {
      lookups.push(asked);
      return asked.filter((code) => codes.includes(code)).map((productCode) => catalogueItemRecord(productCode));
    },
  };
}

/** The documented answer to `body`, refused by the request validation; null when the validator's answer stands. */
function documentedAnswer(body: unknown, catalogue = catalogueOf(['p', 'q', 'a', 'b', 'c'])): Promise<AppError | null> {
  return documentedAnswerToRefusedBody(catalogue, body);
}

describe('the documented answer to a body the request validation refused', () => {
  describe('answers the documented message of the first rule broken', () => {
    it.each<[string, unknown, string]>([
      ['no body', undefined, schemaMismatch],
      ['a null body', null, schemaMismatch],
      ['an array body', [{ reservationAmount: 1 }], schemaMismatch],
      ['a string body', 'reservationAmount=1', schemaMismatch],
      ['a numeric channel', { reservationAmount: 1, channel: 5 }, 'Channel should be a string value'],
      ['a null channel', { reservationAmount: 1, channel: null }, 'Channel should be a string value'],
      ['an object channel', { reservationAmount: 1, channel: { $gt: '' } }, 'Channel should be a string value'],
      ['an array channel', { reservationAmount: 1, channel: ['CUX'] }, 'Channel should be a string value'],
      ['a bad channel before a missing amount', { channel: 1 }, 'Channel should be a string value'],
      ['an empty body', {}, 'Either reservationAmount or catalogueItems is required'],
      ['only flags', { offline: true, extendedExpiry: true }, 'Either reservationAmount or catalogueItems is required'],
      ['only a channel', { channel: 'CUX' }, 'Either reservationAmount or catalogueItems is required'],
      ['a missing amount before a lone redemptionId', { redemptionId: 'rd-100' }, 'Either reservationAmount or catalogueItems is required'],
      ['redemptionId alone', { reservationAmount: 1, redemptionId: 'rd-100' }, 'redemptionId and redeemerId, both are required'],
      ['redeemerId alone', { reservationAmount: 1, redeemerId: 'm-alice' }, 'redemptionId and redeemerId, both are required'],
      ['items without either id', { catalogueItems: [{ productCode: 'p' }] }, 'redemptionId and redeemerId, both are required'],
      ['items with redemptionId only', { catalogueItems: [{ productCode: 'p' }], redemptionId: 'rd-100' }, 'redemptionId and redeemerId, both are required'],
      ['a lone id before bad items', { catalogueItems: [{ productCode: 1 }], redeemerId: 'm' }, 'redemptionId and redeemerId, both are required'],
      ['an entry that is not an object', withItems([{ productCode: 'p' }, 'p']), schemaMismatch],
      ['a null entry', withItems([null]), schemaMismatch],
      ['an array entry', withItems([['p', 1]]), schemaMismatch],
    ])('%s', async (_name, body, message) => {
      expect((await documentedAnswer(body))?.toBody()).toMatchObject({ statusCode: 400, errorCode: 'INVALID_REQUEST', errorMessage: message });
    });
  });

  it('says where a body or an entry is not an object', async () => {
    expect((await documentedAnswer([]))?.extras.details).toEqual([{ path: '/body', message: 'must be object' }]);
    expect((await documentedAnswer(withItems([{ productCode: 'p' }, 7])))?.extras.details).toEqual([
      { path: '/body/catalogueItems/1', message: 'must be object' },
    ]);
  });

  describe('lists malformed catalogue items exactly as sent, in request order', () => {
    const longCode = 'p'.repeat(65);
    it.each<[string, unknown[], unknown[]]>([
      ['a missing productCode', [{ quantity: 1 }], [{ quantity: 1 }]],
      ['an empty productCode', [{ productCode: '' }], [{ productCode: '' }]],
      ['a numeric productCode', [{ productCode: 1, quantity: 1 }], [{ productCode: 1, quantity: 1 }]],
      ['a null productCode', [{ productCode: null }], [{ productCode: null }]],
      ['a productCode over 64 characters', [{ productCode: longCode }], [{ productCode: longCode }]],
      ['a zero quantity', [{ productCode: 'p', quantity: 0 }], [{ productCode: 'p', quantity: 0 }]],
      ['a negative quantity', [{ productCode: 'p', quantity: -2 }], [{ productCode: 'p', quantity: -2 }]],
      ['a string quantity', [{ productCode: 'p', quantity: '2' }], [{ productCode: 'p', quantity: '2' }]],
      ['a null quantity', [{ productCode: 'p', quantity: null }], [{ productCode: 'p', quantity: null }]],
      ['a quantity over 10000', [{ productCode: 'p', quantity: 10001 }], [{ productCode: 'p', quantity: 10001 }]],
      ['a fractional quantity', [{ productCode: 'p', quantity: 2.75 }], [{ productCode: 'p', quantity: 2.75 }]],
      [
        'only the bad ones, in order, with whatever else they carry',
        [{ productCode: 'a', quantity: 0 }, { productCode: 'b' }, { productCode: 2, extra: true }, { productCode: 'c', quantity: 'x' }],
        [{ productCode: 'a', quantity: 0 }, { productCode: 2, extra: true }, { productCode: 'c', quantity: 'x' }],
      ],
    ])('%s', async (_name, items, invalid) => {
      const error = await documentedAnswer(withItems(items));
      expect(error?.toBody()).toEqual({
        statusCode: 400,
        errorCode: 'INVALID_REQUEST',
        errorMessage: 'Invalid catalogue item(s)',
        invalidCatalogueItems: invalid,
      });
    });
  });

  describe('lists unknown product codes with the malformed entries, in request order', () => {
    it.each<[string, unknown[], unknown[]]>([
      ['the decided example', [{ productCode: 'p', quantity: 1 }, { productCode: 'NOPE', quantity: 1 }, { productCode: 'q', quantity: 0 }], [{ productCode: 'NOPE', quantity: 1 }, { productCode: 'q', quantity: 0 }]],
      ['an unknown code after a malformed one', [{ productCode: 1 }, { productCode: 'NOPE' }], [{ productCode: 1 }, { productCode: 'NOPE' }]],
      ['one unknown code sent twice', [{ productCode: 'NOPE' }, { productCode: 'p', quantity: -1 }, { productCode: 'NOPE', quantity: 2 }], [{ productCode: 'NOPE' }, { productCode: 'p', quantity: -1 }, { productCode: 'NOPE', quantity: 2 }]],
      ['a known code with a bad quantity, once', [{ productCode: 'p', quantity: 0 }], [{ productCode: 'p', quantity: 0 }]],
    ])('%s', async (_name, items, invalid) => {
      expect((await documentedAnswer(withItems(items)))?.toBody()).toEqual({
        statusCode: 400,
        errorCode: 'INVALID_REQUEST',
        errorMessage: 'Invalid catalogue item(s)',
        invalidCatalogueItems: invalid,
      });
    });

    it('asks the catalogue once, for the distinct codes of the well-formed entries only', async () => {
      const catalogue = catalogueOf(['p']);
      await documentedAnswer(withItems([{ productCode: 'p' }, { productCode: 'x', quantity: 0 }, { productCode: 'y' }, { productCode: 'p', quantity: 2 }, { productCode: 'y' }]), catalogue);
      expect(catalogue.lookups).toEqual([['p', 'y']]);
    });

    it('does not ask the catalogue when no entry is malformed (the operation checks the codes in its order)', async () => {
      const catalogue = catalogueOf([]);
      expect(await documentedAnswer(withItems([{ productCode: 'NOPE' }]), catalogue)).toBeNull();
      expect(catalogue.lookups).toEqual([]);
    });

    it(`lists entries up to the spec's ${catalogueItemsMax}, and past it asks nobody`, async () => {
      const catalogue = catalogueOf(['p']);
      const items = Array.from({ length: catalogueItemsMax }, (_, i) => ({ productCode: i === 0 ? 'p' : `unknown-${i}`, quantity: i === 1 ? 0 : 1 }));
      expect((await documentedAnswer(withItems(items), catalogue))?.extras.invalidCatalogueItems).toEqual(items.slice(1));
      expect(catalogue.lookups).toHaveLength(1);

      const tooMany = await documentedAnswer(withItems([...items, { productCode: 'p' }]), catalogue);
      expect(tooMany?.toBody()).toEqual({
        statusCode: 400,
        errorCode: 'INVALID_REQUEST',
        errorMessage: schemaMismatch,
        details: [{ path: '/body/catalogueItems', message: `must NOT have more than ${catalogueItemsMax} items` }],
      });
      expect(catalogue.lookups).toHaveLength(1);
    });
  });

  describe("leaves everything else to the validator's wording", () => {
    const emojiCode = '\u{1F600}'.repeat(64); // 64 code points, 128 UTF-16 units
    it.each<[string, unknown]>([
      ['a plain amount', { reservationAmount: 7500 }],
      ['an amount of the wrong type', { reservationAmount: '7500' }],
      ['an unknown field', { reservationAmount: 1, foo: 1 }],
      ['a string channel', { reservationAmount: 1, channel: 'CUX' }],
      ['items that are not an array', { ...pair, catalogueItems: 'p' }],
      ['an empty item list', { ...pair, catalogueItems: [] }],
      ['items only, with both ids', { ...pair, catalogueItems: [{ productCode: 'p' }] }],
      ['a quantity left out', withItems([{ productCode: 'p' }])],
      ['the boundary quantities', withItems([{ productCode: 'p', quantity: 1 }, { productCode: 'q', quantity: 10000 }])],
      ['a 64-character productCode', withItems([{ productCode: 'p'.repeat(64) }])],
      ['a productCode of 64 code points', withItems([{ productCode: emojiCode }])],
      ['an unknown field in an item', withItems([{ productCode: 'p', colour: 'red' }])],
    ])('%s', async (_name, body) => {
      expect(await documentedAnswer(body)).toBeNull();
    });
  });

  describe('reads own fields only', () => {
    it('ignores a channel inside a "__proto__" key', async () => {
      expect(await documentedAnswer(JSON.parse('{"reservationAmount": 1, "__proto__": {"channel": 5}}'))).toBeNull();
    });

    it('does not take a productCode from a "__proto__" key of an item', async () => {
      const body = JSON.parse(`{"reservationAmount": 1, "redemptionId": "r", "redeemerId": "m",
        "catalogueItems": [{"__proto__": {"productCode": "p"}}]}`);
      expect((await documentedAnswer(body))?.message).toBe('Invalid catalogue item(s)');
    });

    // JSON.parse makes "__proto__" an own key, so the cases above pass even
    // for code that reads inherited fields; these inherit for real.
    it('ignores a channel the body only inherits', async () => {
      const body: unknown = Object.assign(Object.create({ channel: 5 }), { reservationAmount: 1 });
      expect(await documentedAnswer(body)).toBeNull();
    });

    it('does not take a productCode an item only inherits', async () => {
      const item: unknown = Object.create({ productCode: 'p' });
      const body = { reservationAmount: 1, redemptionId: 'r', redeemerId: 'm', catalogueItems: [item] };
      expect((await documentedAnswer(body))?.message).toBe('Invalid catalogue item(s)');
    });
  });
});

describe('the limits it shares with the spec', () => {
  it("are the spec's CatalogueItems maxItems, CatalogueItem maxLength and maximum", async () => {
    const spec = (await loadApiSpec()).document as unknown as {
      components: {
        schemas: {
          CatalogueItems: { maxItems: number };
          CatalogueItem: { properties: { productCode: { maxLength: number }; quantity: { maximum: number } } };
        };
      };
    };
    const { CatalogueItems: list, CatalogueItem: item } = spec.components.schemas;
    expect({ catalogueItemsMax, productCodeMaxLength, quantityMax }).toEqual({
      catalogueItemsMax: list.maxItems,
      productCodeMaxLength: item.properties.productCode.maxLength,
      quantityMax: item.properties.quantity.maximum,
    });
  });
});

describe('the redemption pair, the one rule the schema does not state: the service checks it first', () => {
  // Any store call fails the test: the rule is judged on the body alone, before anything is read.
  const untouchable = new Proxy({}, { get: (_target, method) => () => Promise.reject(new Error(`the store was asked: ${String(method)}`)) });
  const service = createReservationService({
    store: untouchable as Parameters<typeof createReservationService>[0]['store'],
    clock: () => new Date('2030-01-01T00:00:00.000Z'),
    walletLimits: defaultWalletLimits,
  });
  const update = (body: object, identifierType: SessionRecord['identifierType'] = 'CARD_NUMBER') =>
    service.updateReservation(
      {
        client: clientRecord('app'),
        session: sessionRecord('h', { identifierType, correlationId: 'm-alice' }),
        correlationId: 'm-alice',
        reservationToken: 'rt-1',
      },
      body,
    );

  it.each<[string, object]>([
    ['redemptionId alone', { reservationAmount: 1, redemptionId: 'rd-100' }],
    ['redeemerId alone', { reservationAmount: 1, redeemerId: 'm-alice' }],
    ['items without either id', { catalogueItems: [{ productCode: 'p' }] }],
    ['items with redeemerId only', { catalogueItems: [{ productCode: 'p' }], redeemerId: 'm-alice' }],
  ])('%s', async (_name, body) => {
    await expect(update(body)).rejects.toMatchObject({ code: 'INVALID_REQUEST', message: 'redemptionId and redeemerId, both are required' });
  });

  it('before the account eligibility', async () => {
    await expect(update({ reservationAmount: 1, redemptionId: 'rd-100' }, 'PHONE_NUMBER')).rejects.toThrow('redemptionId and redeemerId, both are required');
    await expect(update({ reservationAmount: 1 }, 'PHONE_NUMBER')).rejects.toThrow('Account is not eligible for redemption');
  });

  it('lets a body that keeps it go on (to the store)', async () => {
    await expect(update({ ...pair, catalogueItems: [{ productCode: 'p' }] })).rejects.toThrow(/the store was asked/);
    await expect(update({ reservationAmount: 1 })).rejects.toThrow(/the store was asked/);
  });
});
