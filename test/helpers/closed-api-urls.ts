/**
 * Every API URL prherald reads (the web URLs, which only links and sign-in use, stay as they are), pointed
 * at a closed port on 127.0.0.1: port 2, which nothing here serves, so a connect is refused at once (port 1
 * is one that fetch refuses to try at all). The test environment starts from these, so a test that forgot
 * to point one at its fake calls nothing real; the fakes' URLs replace them where a test uses one.
 * Written out, not read from the host registry: a host added later must be added here by hand, and
 * test/helpers/loopback-only.ts refuses a real call in the meantime.
 */
export const CLOSED_API_URLS: Readonly<Record<string, string>> = {
  SLACK_API_URL: 'http://127.0.0.1:2/api/',
  GITHUB_API_URL: 'http://127.0.0.1:2',
  GITLAB_API_URL: 'http://127.0.0.1:2/api/v4',
  BITBUCKET_API_URL: 'http://127.0.0.1:2/2.0',
}
