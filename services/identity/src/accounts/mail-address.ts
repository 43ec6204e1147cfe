import Joi from 'joi';
import { noControlCharacters } from '@restgate/shared/messaging';

/** No display name, list, quoting or comment: nothing that could add a recipient or a header. */
const BARE_ADDRESS = /^[^\s<>()[\]\\,;:"@]+@[^\s<>()[\]\\,;:"@]+$/;

/** A mail's recipient as the mailer checks it: one bare address. */
export const mailRecipientSchema = Joi.string()
  .max(254)
  .custom(noControlCharacters('to'))
  .pattern(BARE_ADDRESS, 'bare address')
  .email({ tlds: { allow: false }, multiple: false, ignoreLength: false });
