import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { startPrherald, testEnv, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * The service is a list of parts: started in dependency order, stopped in the reverse order from the same
 * list. Read from the running service's own list and from its `part started` / `part stopped` log lines.
 */
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let service: TestService | undefined

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack()
  writeConfig(dir.path, { git_provider: 'github', mappings: { Codertocat: { '*': { channel: 'C0000000001' } } } })
})
afterEach(async () => {
  await service?.stop()
  service = undefined
  await slack.close()
  dir.remove()
})

const partsLogged = (s: TestService, msg: string) => s.entries().filter((e) => e.msg === msg).map((e) => e.part)

describe('the service\'s parts', () => {
  it('start with the listeners and the database first and serve last, and stop in the reverse order', async () => {
    service = await startPrherald(dir.path, testEnv(dir.path, 'github', { SLACK_API_URL: slack.url }))
    const started = service.parts()
    expect(started.slice(0, 2)).toEqual(['listeners', 'database'])
    expect(started.indexOf('deliveries')).toBeGreaterThan(started.indexOf('scheduler'))
    expect(started.indexOf('serve')).toBeGreaterThan(started.indexOf('deliveries'))
    expect(partsLogged(service, 'part started')).toEqual(started)

    const stopping = service
    service = undefined
    expect(await stopping.stop()).toEqual({ drained: true })
    expect(partsLogged(stopping, 'part stopped')).toEqual(started.toReversed())
  })

})
