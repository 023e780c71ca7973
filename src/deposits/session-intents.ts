import type { Db } from '../db/types';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { DepositSettings } from './config';
import { DomainError } from '../errors';
import { submitSignedIntent, type Submitted } from '../intents/submit';
import { originTypedData } from '../intents/typed-data';
import type { IntentOp, SignedIntentOp } from '../intents/types';
import type { VerifyDeps } from '../intents/verify';
import { sessionCredit } from './credit-store';
import { loadSessionQuote } from './withdrawal-store';

/**
 * Signs a stored quote of a deposit account with its project's session signer (each origin element and the
 * destination, as a client signs its own) and submits it through the intent core, whose checks it passes like any
 * other submission. Only for an account the project registered with that signer. Safe to repeat: the core answers an
 * accepted intent with its recorded status.
 */
export async function signAndSubmit(
  db: Db,
  config: DepositSettings,
  verify: VerifyDeps,
  signer: PrivateKeyAccount,
  projectId: string,
  nonce: string,
): Promise<Submitted & { operation: IntentOp }> {
  const quoted = await loadSessionQuote(db, nonce, projectId);
  if (!quoted) throw new DomainError('NOT_FOUND', 'Quote expired or not found; request a new route');
  if (quoted.signer !== signer.address.toLowerCase())
    throw new DomainError('CONFLICT', "The account is not registered with this project's session signer");
  const signatures = await Promise.all(
    originTypedData(quoted.operation, verify.compactContract).map((t) =>
      signer.signTypedData(t as Parameters<PrivateKeyAccount['signTypedData']>[0]),
    ),
  );
  const signed: SignedIntentOp = {
    ...quoted.operation,
    originSignatures: signatures,
    destinationSignature: signatures[signatures.length - 1],
  };
  return {
    ...(await submitSignedIntent(
      { db, verify, fillGraceSeconds: config.intents.fillGraceSeconds, proofDays: config.allocator.proofDays },
      projectId,
      nonce,
      () => signed,
      { signer: signer.address, credit: sessionCredit },
    )),
    operation: quoted.operation,
  };
}
