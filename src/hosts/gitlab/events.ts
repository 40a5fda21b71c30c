/** The hook's event switches prherald needs, as GitLab's hooks API names them. */
export const GITLAB_REQUIRED_EVENTS = ['merge_requests_events', 'note_events'] as const
/** Pipelines: "Checks passing/failing" on the message; without them the rest works. */
export const GITLAB_OPTIONAL_EVENTS = ['pipeline_events'] as const
export const GITLAB_EVENTS = [...GITLAB_REQUIRED_EVENTS, ...GITLAB_OPTIONAL_EVENTS]
