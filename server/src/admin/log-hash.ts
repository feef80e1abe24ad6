import type { MongoConfig } from '../config';
import { memberIdHash } from '../domain/secrets';
import { withStore } from './database';
import type { Output } from './output';

/**
 * The hash that stands for a member in the log lines and spans of the
 * servers on this database (LOG_MEMBER_IDS=hashed, the default): what an
 * operator searches the logs for to find one member's requests.
 */
export async function runLogHash(mongo: MongoConfig, correlationId: string, output: Output): Promise<void> {
  const key = await withStore(mongo, (store) => store.logKey());
  const memberHash = memberIdHash(key, correlationId);
  output.result({ correlationId, memberHash }, [memberHash]);
}
