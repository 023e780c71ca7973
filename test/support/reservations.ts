import type { Api } from './harness';

/** How many reservations `owner` (an intent's, bundle's or withdrawal's id) holds unreleased; `kind` narrows the owner. */
export const activeReservations = async (api: Api, owner: string | bigint, kind?: 'intent' | 'bundle') =>
  Number(
    (
      await api.db.query(
        'SELECT count(*) AS n FROM reservations WHERE owner_id = $1 AND ($2::text IS NULL OR owner_kind = $2) AND released_at IS NULL',
        [String(owner), kind ?? null],
      )
    )[0].n,
  );

/** What the account's unreleased reservations add up to. */
export const reservedFor = async (api: Api, account: string) =>
  BigInt(
    (
      await api.db.query(
        'SELECT coalesce(sum(amount), 0) AS s FROM reservations WHERE account = $1 AND released_at IS NULL',
        [account.toLowerCase()],
      )
    )[0].s,
  );
