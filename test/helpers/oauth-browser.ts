/**
 * What a person's browser does with the link `/prherald link` gives (issue 33): opens it (the cookie /start
 * sets, and its redirect to the host), consents at the host's page (the fake answers with the redirect back),
 * and follows that to the callback with the cookie it holds. Nothing follows redirects by itself.
 */
export async function openLink(url: string): Promise<{ res: Response; cookie: string | undefined; location: string }> {
  const res = await fetch(url, { redirect: 'manual' })
  return { res, cookie: res.headers.get('set-cookie')?.split(';')[0], location: res.headers.get('location') ?? '' }
}

/** The host's authorize page: the signed-in person consents; the callback URL with code and state. */
export async function consent(authorize: string): Promise<string> {
  return (await fetch(authorize, { redirect: 'manual' })).headers.get('location')!
}

export async function followCallback(url: string, cookie: string | undefined): Promise<{ status: number; html: string; type: string | null }> {
  const res = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} })
  return { status: res.status, html: await res.text(), type: res.headers.get('content-type') }
}

/** The link in `/prherald link <host>`'s answer (`<url|Link your … account>`), or undefined. */
export const linkIn = (text: string): string | undefined => /<(http[^|>]+)\|Link your /.exec(text)?.[1]?.replace(/&amp;/g, '&')
