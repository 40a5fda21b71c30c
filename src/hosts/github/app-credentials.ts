import { createPrivateKey } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { PrheraldError } from '../../errors.ts'
import type { Env, HostAccess, OtherCredentials } from '../contract.ts'

/** A GitHub App's credentials: its id, its private key (PEM), and the one installation to use, if fixed. */
export interface GithubAppCredentials extends OtherCredentials {
  appId: number
  privateKey: string
  /** GITHUB_APP_INSTALLATION_ID; undefined: each owner's installation is looked up. */
  installationId: number | undefined
}

export const APP_VARIABLES = ['GITHUB_APP_ID', 'GITHUB_APP_PRIVATE_KEY_FILE', 'GITHUB_APP_INSTALLATION_ID'] as const
/** A GitHub App stands in for GITHUB_TOKEN (both set is refused), so none of these says how the token authenticates. */
export const APP_VARIABLE_HELP: Record<(typeof APP_VARIABLES)[number], string> = {
  GITHUB_APP_ID: 'a GitHub App instead of GITHUB_TOKEN: the app\'s id (with GITHUB_APP_PRIVATE_KEY_FILE)',
  GITHUB_APP_PRIVATE_KEY_FILE: 'the GitHub App\'s private key: the path of its .pem file',
  GITHUB_APP_INSTALLATION_ID: 'the GitHub App\'s installation for every owner (default: looked up per owner)',
}

const invalid = (message: string, fix: string) => new PrheraldError('config_invalid', message, { fix })

function positiveInteger(env: Env, name: string): number | undefined {
  const text = env[name]?.trim() ?? ''
  if (text === '') return undefined
  if (!/^[1-9]\d{0,15}$/.test(text)) throw invalid(`${name} is "${text}", not a number`, `set ${name} to the number GitHub shows on the app's settings page`)
  return Number(text)
}

/** The PEM at GITHUB_APP_PRIVATE_KEY_FILE, checked to be a private key; no message carries its content. */
function readPrivateKey(path: string): string {
  let pem: string
  try {
    pem = readFileSync(path, 'utf8')
  } catch (error) {
    const code = (error as { code?: unknown }).code
    throw invalid(`GITHUB_APP_PRIVATE_KEY_FILE: cannot read ${path} (${typeof code === 'string' ? code : 'unreadable'})`,
      'set GITHUB_APP_PRIVATE_KEY_FILE to the .pem file downloaded from the app\'s settings page (Private keys → Generate), readable by prherald')
  }
  try {
    createPrivateKey(pem)
  } catch {
    throw invalid(`GITHUB_APP_PRIVATE_KEY_FILE: ${path} is not a PEM private key`,
      'point GITHUB_APP_PRIVATE_KEY_FILE at the .pem file GitHub generated for the app (it begins with -----BEGIN RSA PRIVATE KEY-----)')
  }
  return pem
}

/** The app named by GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY_FILE; undefined when neither is set. */
function readApp(env: Env): GithubAppCredentials | undefined {
  const appId = positiveInteger(env, 'GITHUB_APP_ID')
  const keyFile = env.GITHUB_APP_PRIVATE_KEY_FILE?.trim() ?? ''
  if (appId === undefined && keyFile === '') return undefined
  if (appId === undefined) throw invalid('GITHUB_APP_PRIVATE_KEY_FILE is set but GITHUB_APP_ID is not', 'set GITHUB_APP_ID to the app\'s id, or unset GITHUB_APP_PRIVATE_KEY_FILE')
  if (keyFile === '') throw invalid('GITHUB_APP_ID is set but GITHUB_APP_PRIVATE_KEY_FILE is not', 'set GITHUB_APP_PRIVATE_KEY_FILE to the path of the app\'s .pem private key')
  const privateKey = readPrivateKey(keyFile)
  return { appId, privateKey, installationId: positiveInteger(env, 'GITHUB_APP_INSTALLATION_ID'), secrets: [privateKey] }
}

/**
 * GITHUB_TOKEN, or a GitHub App. Both set is refused rather than one silently winning: the two act as different
 * identities with different permissions, and an operator moving to an app should know which one prherald uses.
 */
export function readGithubAccess(env: Env): HostAccess {
  const token = env.GITHUB_TOKEN || undefined
  const app = readApp(env)
  if (!app) return { token, extra: {}, scheme: undefined }
  if (token !== undefined) throw invalid('GITHUB_TOKEN and GITHUB_APP_ID are both set', 'authenticate one way: unset GITHUB_TOKEN to use the GitHub App, or unset GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY_FILE')
  const installation = app.installationId === undefined ? 'installation per owner' : `installation ${app.installationId}`
  return { token: undefined, other: app, extra: {}, scheme: `GitHub App ${app.appId} (${installation})` }
}

export function isGithubApp(other: OtherCredentials | undefined): other is GithubAppCredentials {
  return other !== undefined && 'appId' in other && 'privateKey' in other
}
