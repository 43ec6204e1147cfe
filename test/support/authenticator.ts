/**
 * An authenticator app, as a test holds one: the enrolment's secret and the codes it shows, with
 * `otpauth` (the library identity uses, but fed only from what the API answered). Each code is of
 * a later time step than the one before, as a person typing codes over time would send them; when
 * the drift window has no later step left, it waits for the clock.
 */
import { Secret, TOTP } from 'otpauth';

const PERIOD_MS = 30_000;

export class TestAuthenticator {
  private readonly totp: TOTP;
  private lastStep = -Infinity;

  constructor(secret: string) {
    this.totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
  }

  /** The code of the earliest unused step from now to one step ahead (the server's drift window). */
  async nextCode(): Promise<string> {
    for (;;) {
      const current = Math.floor(Date.now() / PERIOD_MS);
      const step = Math.max(current, this.lastStep + 1);
      if (step <= current + 1) {
        this.lastStep = step;
        return this.codeAt(step);
      }
      await new Promise((resolve) => setTimeout(resolve, (current + 1) * PERIOD_MS - Date.now() + 50));
    }
  }

  /** The last code handed out again (a replay). */
  lastCode(): string {
    return this.codeAt(this.lastStep);
  }

  /** A code of a step far outside the drift window: wrong now. */
  wrongCode(): string {
    return this.codeAt(Math.floor(Date.now() / PERIOD_MS) + 40);
  }

  private codeAt(step: number): string {
    return this.totp.generate({ timestamp: step * PERIOD_MS });
  }
}
