export { createMailer, DEFAULT_MAIL_TIMEOUTS } from './mailer';
export type { Mailer, MailerOptions, MailMessage, MailTimeouts } from './mailer';
export { MailError } from './mail-error';
export type { MailFailure } from './mail-error';
export { mailConfig } from './mail-config';
export type { MailConfig } from './mail-config';
