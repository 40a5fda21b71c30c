import type { CheckResult } from './check-result.ts'

/** A webhook secret shorter than this is warned about (`prherald-setup` makes 64 hex characters). */
export const MIN_SECRET_LENGTH = 16

/**
 * The one check of a webhook secret's length, for the doctor, `prherald-config validate` and the start-up
 * checks alike. Short secrets are guessable offline from one captured delivery (its body and signature):
 * warned, never refused. Undefined when the secret is unset (the callers say so in their own words) or long enough.
 */
export function shortSecretResult(variable: string, value: string | undefined): CheckResult | undefined {
  if (value === undefined || value.trim() === '' || value.length >= MIN_SECRET_LENGTH) return undefined
  return {
    name: 'secret', target: variable, status: 'WARN', reason: `set, but shorter than ${MIN_SECRET_LENGTH} characters`,
    fix: `use a random secret of 32 bytes or more (openssl rand -hex 32) on the webhook and in ${variable} (docs/security.md#rotating-a-webhook-secret)`,
  }
}
