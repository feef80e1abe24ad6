import type { Services } from '../../domain/services';
import { authenticatedClient, authenticatedKeyId } from '../../http/locals';
import { headerParameter, type OperationHandler } from '../../http/operation-types';

/**
 * Start Session: 201 with the new session.
 * Mounted by `createApp` on `routes.startSession`, after the checks.
 */
export function startSession(services: Services): OperationHandler<'startSession'> {
  return async (req, res) => {
    const identifierType = headerParameter(req, 'startSession', 'X-Identifier-Type');
    const client = authenticatedClient(res);
    const keyId = authenticatedKeyId(res);
    if (keyId === undefined) throw new Error('no API key id: requireApiKey is not mounted on this route');
    const started = await services.sessions.startSession(client, keyId, req.params.correlation_id, identifierType);
    // The body holds a bearer secret: no cache may keep it.
    res.status(201).set('Cache-Control', 'no-store').json({
      sessionToken: started.sessionToken,
      sessionId: started.sessionId,
      identifierType: started.identifierType,
      expiresAt: started.expiresAt.toISOString(),
    });
  };
}
