import type { Infer } from '../http/schema';
import { tokenOfId } from '../intents/quote-store';
import type { OpenIntentRow } from './store';
import type { openIntentsResponse } from './schemas';

type OpenIntent = Infer<typeof openIntentsResponse>['intents'][number];

/** A cursor names a place in the feed: the accepting transaction and the intent id, opaque to relayers. */
export const encodeCursor = (row: Pick<OpenIntentRow, 'openedXid' | 'id'>) =>
  Buffer.from(`${row.openedXid}.${row.id}`).toString('base64url');

export function decodeCursor(cursor: string): { xid: string; id: string } | undefined {
  const m = /^(\d{1,20})\.(\d{1,80})$/.exec(Buffer.from(cursor, 'base64url').toString());
  return m ? { xid: m[1], id: m[2] } : undefined;
}

/** An open intent as a relayer reads it: what a fill must pay, and the signed operation it fills. */
export function presentOpenIntent(row: OpenIntentRow): OpenIntent {
  const { mandate } = row.operation.elements[0];
  return {
    id: row.id,
    fill: {
      chainId: Number(mandate.destinationChainId),
      recipient: mandate.recipient.toLowerCase() as `0x${string}`,
      tokens: mandate.tokenOut.map(([id, amount]) => ({
        token: tokenOfId(id) as `0x${string}`,
        amount: BigInt(amount).toString(),
      })),
      fillDeadline: Number(mandate.fillDeadline),
    },
    operation: row.operation,
    signatures: row.signatures,
    cursor: encodeCursor(row),
  };
}
