import { identifierTypes, keys, members, reliabilityClients, type ReliabilityClient } from './fixture';
import type { Api } from './http';

export interface SessionInfo {
  sessionToken: string;
  sessionId: string;
}

/** One session per client, member and identifier type, started through the API. */
export type SessionPool = Record<ReliabilityClient, Record<string, Record<string, SessionInfo>>>;

export async function startSessionPool(api: Api): Promise<SessionPool> {
  const pool = {} as SessionPool;
  for (const client of reliabilityClients) {
    pool[client] = {};
    for (const member of members) {
      pool[client][member] = {};
      for (const identifierType of identifierTypes) {
        pool[client][member][identifierType] = await api.session(keys[client], member, identifierType);
      }
    }
  }
  return pool;
}

export function sessionOf(pool: SessionPool, client: ReliabilityClient, member: string, identifierType = 'CARD_NUMBER'): SessionInfo | undefined {
  return pool[client]?.[member]?.[identifierType];
}
