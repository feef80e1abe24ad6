import { error as validatorErrors } from 'express-openapi-validator';
import { AppError, schemaError, schemaErrorMessage, serviceUnavailable, type ErrorCode } from '../domain/errors';
import { StoreUnavailableError } from '../store/port';

/** What the error middleware sends, and how loudly it logs. */
export interface RenderedError {
  error: AppError;
  headers: Record<string, string>;
  /** Whether the access log should carry the error: not for the client's own faults. */
  log: boolean;
}

type Detail = { path: string; message: string };

/** Every 503 of the API says when to try again, as the spec's ServiceUnavailable does. */
const retrySoon = { 'Retry-After': '1' };

/**
 * Turns anything thrown into the documented error body. Only `AppError`
 * messages and fixed texts reach the client: never a stack, a driver's or a
 * parser's message.
 */
export function renderError(thrown: unknown): RenderedError {
  if (thrown instanceof AppError) return renderAppError(thrown);
  if (thrown instanceof StoreUnavailableError) return renderAppError(serviceUnavailable());
  if (isValidatorError(thrown)) return fromValidatorError(thrown);
  if (isBodyParserError(thrown)) return fromBodyParserError(thrown);
  if (isUndecodablePath(thrown)) return renderAppError(schemaError());
  return internalError();
}

/**
 * An `AppError` rendered as it is, whatever its status (the client's 4xx,
 * a 503 with when to try again): logged when it is the server's (5xx).
 */
function renderAppError(error: AppError, headers: Record<string, string> = {}): RenderedError {
  return { error, headers: error.status === 503 ? { ...retrySoon, ...headers } : headers, log: error.status >= 500 };
}

function internalError(): RenderedError {
  return { error: new AppError('INTERNAL_ERROR', 'Internal error'), headers: {}, log: true };
}

// --- express-openapi-validator ------------------------------------------------

/** The validator's errors: `status`, `errors[]` of `{ path, message }`, `headers` (405). Untyped at this boundary. */
interface ValidatorError {
  status: number;
  errors?: unknown;
  headers?: Record<string, unknown>;
}

const validatorErrorClasses: ReadonlyArray<new (...args: never[]) => object> = Object.values(validatorErrors);

function isValidatorError(thrown: unknown): thrown is ValidatorError {
  return validatorErrorClasses.some((errorClass) => thrown instanceof errorClass);
}

function fromValidatorError(thrown: ValidatorError): RenderedError {
  switch (thrown.status) {
    case 400:
      return renderAppError(schemaError(...detailsOf(thrown.errors)));
    case 404:
      return renderAppError(new AppError('NOT_FOUND', 'Resource not found'));
    case 405:
      return renderAppError(new AppError('METHOD_NOT_ALLOWED', 'Method not allowed'), allowHeader(thrown.headers));
    case 413:
      return renderAppError(new AppError('PAYLOAD_TOO_LARGE', 'Request body is too large'));
    case 415:
      return renderAppError(new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json'));
    default:
      // 500 (a response that breaks the spec, a spec it cannot load) and codes the spec does not document.
      return internalError();
  }
}

function detailsOf(errors: unknown): Detail[] {
  if (!Array.isArray(errors)) return [];
  return errors.flatMap((item: { path?: unknown; message?: unknown } | null) =>
    typeof item?.path === 'string' && typeof item.message === 'string' ? [{ path: item.path, message: item.message }] : [],
  );
}

function allowHeader(headers: Record<string, unknown> | undefined): Record<string, string> {
  const allow = headers?.Allow ?? headers?.allow;
  return typeof allow === 'string' ? { Allow: allow } : {};
}

// --- body-parser ----------------------------------------------------------------

/** body-parser's errors carry a stable `type`. */
interface BodyParserError {
  type: string;
}

const bodyParserErrors: Record<string, { code: ErrorCode; message: string }> = {
  'entity.parse.failed': { code: 'INVALID_REQUEST', message: 'Malformed JSON in request body' },
  'entity.too.large': { code: 'PAYLOAD_TOO_LARGE', message: 'Request body is too large' },
  'charset.unsupported': { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type must be application/json (UTF-8)' },
  'encoding.unsupported': { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Encoding is not supported' },
  // The client sent less or more than its Content-Length, or went away.
  'request.size.invalid': { code: 'INVALID_REQUEST', message: schemaErrorMessage },
  'request.aborted': { code: 'INVALID_REQUEST', message: schemaErrorMessage },
};

function isBodyParserError(thrown: unknown): thrown is BodyParserError {
  return thrown instanceof Error && typeof (thrown as Partial<BodyParserError>).type === 'string';
}

function fromBodyParserError(thrown: BodyParserError): RenderedError {
  const known = bodyParserErrors[thrown.type];
  return known ? renderAppError(new AppError(known.code, known.message)) : internalError();
}

// --- Express router -------------------------------------------------------------

/** A path parameter with broken percent-encoding: the router throws a 400 URIError. */
function isUndecodablePath(thrown: unknown): boolean {
  return thrown instanceof URIError && (thrown as URIError & { status?: unknown }).status === 400;
}
