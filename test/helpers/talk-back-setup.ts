import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import type { Env } from '../../src/config/load-config.ts'
import { hostOf } from '../../src/hosts/registry.ts'
import { migrateUp } from '../../src/store/migrations.ts'
import { openDatabase } from '../../src/store/open-database.ts'
import { openPostgresPool } from '../../src/store/postgres-pool.ts'
import { postgresMigrateUp } from '../../src/store/postgres-migrations.ts'
import { createPostgresStore } from '../../src/store/postgres-store.ts'
import { createSqliteStore } from '../../src/store/sqlite-store.ts'
import type { Store } from '../../src/store/store.ts'
import { readTokenCipher } from '../../src/talk-back/token-cipher.ts'
import { createTokenVault } from '../../src/talk-back/token-vault.ts'
import type { FakeAccount, FakeOAuthHost } from './fake-oauth.ts'

/** The people and the channel of issue 33's tests: Alice links her account, Bob does not. */
export const ALICE = 'U0ALICE'
export const BOB = 'U0BOB'
export const CHANNEL = 'C0000000001'
export const TEST_PUBLIC_URL = 'https://prherald.example'

/** The fake host's accounts: Alice links hers; `prherald` is the account of prherald's own token. */
export const ACCOUNTS: FakeAccount[] = [{ login: 'alice', accountId: '557058:alice', name: 'Alice' }, { login: 'prherald', accountId: '557058:prherald', name: 'prherald' }]

/** Alice's account and the pull request author's, for the review scenarios (the author cannot review their own). */
export const aliceAndAuthor = (author: string): FakeAccount[] =>
  [{ login: 'alice', accountId: '557058:alice', name: 'Alice' }, { login: author, accountId: `557058:${author}`, name: 'Author' }]

export const newTokenKey = () => randomBytes(32).toString('base64')

/**
 * The variables that turn talk-back on against a fake host: its OAuth client, its web and API addresses, a
 * PRHERALD_TOKEN_KEY (fresh unless given), and, when given, the public URL and prherald's own token there.
 */
export function talkBackEnv(fake: FakeOAuthHost, options: { key?: string; publicUrl?: string; ownToken?: string } = {}): Env {
  const host = hostOf(fake.kind)
  const { variables } = host.talkBack!
  return {
    [variables.clientId]: fake.client.clientId, [variables.clientSecret]: fake.client.clientSecret,
    ...(variables.webUrl ? { [variables.webUrl]: fake.url } : {}),
    [host.variables.apiUrl]: fake.apiUrl,
    PRHERALD_TOKEN_KEY: options.key ?? newTokenKey(),
    ...(options.publicUrl ? { PRHERALD_PUBLIC_URL: options.publicUrl } : {}),
    ...(options.ownToken ? { [host.variables.token]: options.ownToken } : {}),
  }
}

export interface LinkOptions {
  fake: FakeOAuthHost
  /** The PRHERALD_TOKEN_KEY the service opens tokens with. */
  key: string
  slackUser?: string
  login?: string
  /** How `users:` keys the account; the fake account's id unless given. */
  accountKey?: string
  /** When the access token expires (unix ms); an hour from now unless given (within 5 minutes: refreshed at its next use). */
  expiresAt?: number
}

/**
 * Links a person (Alice unless told) to the fake host's account as a finished OAuth flow would: tokens the fake
 * issued, sealed under `key` and written through a vault over `store` (one over the service's own database).
 */
export async function linkAccount(store: Store, options: LinkOptions): Promise<void> {
  const { fake, slackUser = ALICE, login = 'alice' } = options
  const account = fake.accounts.find((a) => a.login === login)
  if (!account) throw new Error(`the fake ${fake.kind} has no account ${login}`)
  const vault = createTokenVault({
    store, cipher: readTokenCipher({ PRHERALD_TOKEN_KEY: options.key })!, apiOf: () => undefined,
    redirectUri: () => `${TEST_PUBLIC_URL}/oauth/${fake.kind}/callback`, now: Date.now, owner: 'test',
  })
  const { accessToken, refreshToken } = fake.issue(login)
  await vault.link(slackUser, fake.kind, { accessToken, refreshToken, expiresAt: options.expiresAt ?? Date.now() + 3_600_000 }, { login, accountKey: options.accountKey ?? account.accountId ?? login })
}

/** linkAccount through a store over the SQLite file in `dir`, migrated first (the service may not have started yet). */
export async function linkInSqlite(dir: string, options: LinkOptions): Promise<void> {
  const db = openDatabase(join(dir, 'prherald.db'))
  migrateUp(db)
  const store = createSqliteStore(db, Date.now)
  try {
    await linkAccount(store, options)
  } finally {
    await store.close()
  }
}

/** linkAccount through a store over the PostgreSQL database at `url`, migrated first. */
export async function linkInPostgres(url: string, options: LinkOptions): Promise<void> {
  const pool = await openPostgresPool({ url, onIdleError: () => {} })
  await postgresMigrateUp(pool)
  const store = createPostgresStore({ pool, now: Date.now })
  try {
    await linkAccount(store, options)
  } finally {
    await store.close()
  }
}
