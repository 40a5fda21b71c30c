import { describe, expect, it } from 'vitest'
import { isPostgresUrl, redactPostgresUrl, scrubPostgresSecrets } from '../../src/store/postgres-url.ts'

describe('PostgreSQL urls in messages', () => {
  it('recognises postgres:// and postgresql:// only', () => {
    expect(isPostgresUrl('postgres://db/prherald')).toBe(true)
    expect(isPostgresUrl('POSTGRESQL://db/prherald')).toBe(true)
    expect(isPostgresUrl('file:./data/prherald.db')).toBe(false)
    expect(isPostgresUrl('mysql://db/x')).toBe(false)
  })

  it('replaces user-info and secret parameters, keeps where it points', () => {
    expect(redactPostgresUrl('postgres://app:s3cr%40t@db.internal:6543/prherald?sslmode=require&password=p2&sslpassword=p3'))
      .toBe('postgres://***@db.internal:6543/prherald?sslmode=require&password=***&sslpassword=***')
    expect(redactPostgresUrl('postgresql://app@db/prherald')).toBe('postgresql://***@db/prherald')
    expect(redactPostgresUrl('postgres://db:5432/prherald')).toBe('postgres://db:5432/prherald')
    expect(redactPostgresUrl('postgres://a:b@[not a url')).toBe('<unparseable database url>')
  })

  it('scrubs the url, its password (raw and decoded) and a password given apart from driver text', () => {
    const url = 'postgres://app:s3cr%40t@db/prherald'
    const text = `failed ${url} with s3cr%40t and s3cr@t and env-secret`
    const out = scrubPostgresSecrets(text, url, ['env-secret'])
    expect(out).toBe('failed postgres://***@db/prherald with *** and *** and ***')
  })
})
