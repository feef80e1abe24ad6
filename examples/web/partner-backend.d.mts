// Types of partner-backend.mjs, for the TypeScript tests that import it.
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface DemoMember {
  correlationId: string;
  name: string;
  reservationToken: string;
  reservationAmount: number;
}

export declare const demoMembers: DemoMember[];

export declare function signIn(options: { apiBaseUrl: string; secretKey: string; origin: string }): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
