import { randomBytes } from 'node:crypto'

/** A fresh webhook secret: 32 random bytes as 64 hex characters (safe in .env and in a web form). */
export function generateWebhookSecret(): string {
  return randomBytes(32).toString('hex')
}
