import { AppError, errors } from '@restgate/shared';

/**
 * The errors only the mailer raises. It has no API of its own, so these never become HTTP
 * responses; they carry the code and the reason that end up in logs and dead-letter headers.
 */
export const mailerErrors = {
  /** The transport did not take the mail. `permanent`: the server refused it for good (5xx). */
  sendFailed(reason: string, permanent: boolean, cause?: unknown): AppError {
    return new AppError({
      code: permanent ? 'mail_rejected' : 'mail_send_failed',
      status: 502,
      title: permanent ? 'Mail refused' : 'Mail not sent',
      detail: reason,
      extras: { permanent },
      cause,
    });
  },
  deliveryLogUnavailable(cause: unknown): AppError {
    return errors.unavailable(`The delivery log is unavailable: ${(cause as Error)?.message ?? String(cause)}`, cause);
  },
};

/** True for a refusal that sending again would get again. */
export function isPermanentFailure(err: unknown): boolean {
  return err instanceof AppError && err.code === 'mail_rejected';
}
