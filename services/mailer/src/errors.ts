import { AppError, errorCatalogue, errors, problem, type CodeOf, type ErrorEntry } from '@restgate/shared';

/**
 * The error codes only the mailer raises. It has no API of its own, so these never become HTTP
 * responses; they carry the code and the reason that end up in logs and dead-letter headers.
 */
export const mailerErrorCatalogue = errorCatalogue({
  mail_rejected: {
    status: 502,
    title: 'Mail refused',
    detail: 'The SMTP server refused the mail for good (a 5xx): sending it again would be refused again.',
  },
  mail_send_failed: {
    status: 502,
    title: 'Mail not sent',
    detail: 'The SMTP server did not take the mail this time; it is tried again later.',
  },
} as const satisfies Record<string, ErrorEntry>);

export type MailerErrorCode = CodeOf<typeof mailerErrorCatalogue>;

export const mailerErrors = {
  /** The transport did not take the mail. `permanent`: the server refused it for good (5xx). */
  sendFailed(reason: string, permanent: boolean, cause?: unknown): AppError {
    const entry = permanent ? mailerErrorCatalogue.mail_rejected : mailerErrorCatalogue.mail_send_failed;
    return problem(entry, { detail: reason, extras: { permanent }, cause });
  },
  deliveryLogUnavailable(cause: unknown): AppError {
    return errors.unavailable(`The delivery log is unavailable: ${(cause as Error)?.message ?? String(cause)}`, cause);
  },
};

/** True for a refusal that sending again would get again. */
export function isPermanentFailure(err: unknown): boolean {
  return err instanceof AppError && err.code === mailerErrorCatalogue.mail_rejected.code;
}
