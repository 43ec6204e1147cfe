/** Caps the reset mails one e-mail address receives; past the cap the request is answered alike, and no mail goes. */
export interface ResetMailCap {
  /** True while `email` may get another mail in this window (counts this one). */
  allow(email: string): Promise<boolean>;
}
