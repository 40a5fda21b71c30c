import { describe, expect, it } from 'vitest'
import { isPostgresUrl, scrubPostgresSecrets } from '../../src/store/postgres-url.ts'

describe('PostgreSQL urls in messages', () => {
  it('recognises postgres:// and postgresql:// only', () => {
    expect(isPostgresUrl('postgres://db/prherald')).toBe(true)
    expect(isPostgresUrl('POSTGRESQL://db/prherald')).toBe(true)
    expect(isPostgresUrl('file:./data/prherald.db')).toBe(false)
    expect(isPostgresUrl('mysql://db/x')).toBe(false)
  })

  it('scrubs the url, its password (raw and decoded) and a password given apart from driver text', () => {
    const url = 'postgres://app:s3cr%40t@db/prherald'
    const text = `failed ${url} with s3cr%40t and s3cr@t and env-secret`
    const out = scrubPostgresSecrets(text, url, ['env-secret'])
    expect(out).toBe('failed postgres://***@db/prherald with *** and *** and ***')
  })

  it('scrubs a password given as a query parameter', () => {
    const url = 'postgres://db/prherald?sslmode=require&password=p2-secret'
    expect(scrubPostgresSecrets(`bad p2-secret at ${url}`, url)).toBe('bad *** at postgres://db/prherald?sslmode=require&password=***')
  })
})
