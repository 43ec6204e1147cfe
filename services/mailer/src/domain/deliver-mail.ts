import type { Logger } from '@restgate/shared';
import type { MailMessage } from './mail.messages';
import { mailerErrors } from '../errors';
import type { DeliveryLog, MailSender, SentMail } from './mail.model';
import { renderMail } from './render-mail';

export interface DeliverMailDeps {
  deliveries: DeliveryLog;
  sender: MailSender;
  /** How long our claim on a message keeps other copies from sending it. */
  leaseMs: number;
  log: Logger;
}

export type DeliveryOutcome =
  | { status: 'sent'; sent: SentMail }
  /** The delivery log says this message went out before: nothing sent now. */
  | { status: 'already-sent' }
  /** Another copy is being sent now: look again later. */
  | { status: 'busy' };

const RECORD_ATTEMPTS = 3;

/**
 * Sends one mail message at most once per message id, as far as the delivery log can tell:
 * render → claim → send → record. A failed send releases the claim and throws
 * `mailerErrors.sendFailed` (permanent or not); a delivery log that does not answer throws
 * `mailerErrors.deliveryLogUnavailable` before anything is sent.
 */
export async function deliverMail(message: MailMessage, deps: DeliverMailDeps): Promise<DeliveryOutcome> {
  const rendered = renderMail(message);

  const claim = await deps.deliveries
    .claim({ id: message.id, type: message.type, requestId: message.requestId, leaseMs: deps.leaseMs })
    .catch((err: unknown) => {
      throw mailerErrors.deliveryLogUnavailable(err);
    });
  if (claim.outcome === 'sent') return { status: 'already-sent' };
  if (claim.outcome === 'busy') return { status: 'busy' };

  let sent: SentMail;
  try {
    sent = await deps.sender.send({ id: message.id, ...rendered });
  } catch (err) {
    await deps.deliveries.release(message.id, claim.token, (err as Error).message).catch((releaseErr: unknown) => {
      // The claim then simply runs out after the lease.
      deps.log.warn({ err: (releaseErr as Error).message }, 'could not release the delivery claim');
    });
    throw err;
  }

  await recordSent(message.id, sent, deps);
  return { status: 'sent', sent };
}

/**
 * The mail has gone out, so the message is done whatever happens here. If the record cannot be
 * written, a redelivery of this message within the lease still waits, and after it would send a
 * second mail: we log loudly rather than pretend.
 */
async function recordSent(id: string, sent: SentMail, deps: DeliverMailDeps): Promise<void> {
  for (let attempt = 1; attempt <= RECORD_ATTEMPTS; attempt++) {
    try {
      await deps.deliveries.markSent(id, sent);
      return;
    } catch (err) {
      if (attempt === RECORD_ATTEMPTS) {
        deps.log.error({ err: (err as Error).message }, 'mail sent but not recorded in the delivery log');
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}
