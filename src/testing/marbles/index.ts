/** The marble kit: builders, replies as diagrams, a recording model, letters, tools and input in frames. */
export {
  blockStop,
  inputJsonDelta,
  messageDelta,
  messageStart,
  messageStop,
  signatureDelta,
  textDelta,
  textStart,
  thinkingDelta,
  thinkingStart,
  toolUseStart,
} from './streamEvents.js';
export { replyMarble } from './replyMarble.js';
export type { ReplyMarble, ReplyMarbleOptions } from './replyMarble.js';
export { marbleFromTimeline, MARBLE_LETTERS } from './timeline.js';
export type { MarbleEnd, TimedLetter } from './timeline.js';
export { coldModel } from './coldModel.js';
export type { ColdModel, SubscriptionLogs } from './coldModel.js';
export { EVENT_LETTERS, eventLetters, letters } from './letters.js';
export type { LetterMap } from './letters.js';
export { neverTool, progressTool, throwingTool, waitTool } from './toolFixtures.js';
export type { FixtureOptions } from './toolFixtures.js';
export { inputMarble } from './inputMarble.js';
export type { InputMarble, TypedInput } from './inputMarble.js';
export { submitAt } from './submitAt.js';
export type { ScheduledSubmission } from './submitAt.js';
export { endlessSyncSource } from './endlessSyncSource.js';
export type { EndlessSyncSource } from './endlessSyncSource.js';
export { testScheduler } from './testScheduler.js';
