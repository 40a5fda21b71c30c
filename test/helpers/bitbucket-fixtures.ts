import { readFileSync } from 'node:fs'

const FIXTURES = new URL('../fixtures/bitbucket/', import.meta.url)

/**
 * A fresh copy of test/fixtures/bitbucket/<name>.json: a Bitbucket Cloud payload shaped as Atlassian documents
 * it. `name` is the event key without `pullrequest:` (`approved`, `comment_created`, ...) or `repo-push`.
 * Read on every call, so a test that edits its copy cannot leak into another.
 */
export function bitbucketFixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`${name}.json`, FIXTURES), 'utf8')) as Record<string, unknown>
}
