import type { RequestHandler } from 'express';
import { schemaError } from '../../domain/errors';
import { identifierTypes, type IdentifierType } from '../../domain/model';
import type { Services } from '../../domain/services';
import { authenticatedClient, authenticatedKeyId } from '../../http/locals';

/**
 * Start Session: `POST /client/users/{correlation_id}/sessions`, 201 with the new session.
 * Mounted by `createApp` on `routes.startSession`, after the checks.
 */
export function startSession(services: Services): RequestHandler<{ correlation_id: string }> {
  return async (req, res) => {
    const identifierType = parseIdentifierType(req.get('x-identifier-type'));
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

/** The schema has checked the header already; this narrows its type. */
function parseIdentifierType(header: string | undefined): IdentifierType {
  const match = identifierTypes.find((type) => type === header);
  if (!match) {
    throw schemaError({ path: '/headers/x-identifier-type', message: 'must be equal to one of the allowed values' });
  }
  return match;
}
