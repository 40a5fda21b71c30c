import { createActor, type AnyActorScope, type ExecutableActionsFrom, type SnapshotFrom } from 'xstate'
import { pullRequestMachine, type MachineEvent, type PullRequestContext } from './pull-request.machine.ts'

type Snapshot = SnapshotFrom<typeof pullRequestMachine>
type Actions = ExecutableActionsFrom<typeof pullRequestMachine>[]

// Never started: it only gives the scope its `self` and `system`, as XState's own inert scope does.
const self = createActor(pullRequestMachine, { input: {} as PullRequestContext })
let collect: (action: Actions[number]) => void = () => {}
const scope: AnyActorScope = {
  self, id: '', sessionId: '', system: self.system,
  logger: () => {}, defer: () => {}, emit: () => {}, stopChild: () => {},
  actionExecutor: (action) => collect(action as Actions[number]),
}

/**
 * What XState's `transition(pullRequestMachine, snapshot, event)` returns: the next snapshot and the actions to
 * carry out. That builds an actor and an actor system for every call, to have a scope to run in: most of a
 * delivery's time in the machine. The machine spawns and invokes nothing, schedules nothing and is
 * pure, so one inert scope serves every call; transitions are synchronous, so each call's action collector is
 * the scope's until it returns.
 */
export function machineTransition(snapshot: Snapshot, event: MachineEvent): [Snapshot, Actions] {
  const actions: Actions = []
  collect = (action) => void actions.push(action)
  try {
    return [pullRequestMachine.transition(snapshot, event, scope), actions]
  } finally {
    collect = () => {}
  }
}
