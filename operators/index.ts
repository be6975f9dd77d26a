export { assembleBlocks } from './assembleBlocks.js';
export { scheduleTools } from './scheduleTools.js';
export type { ScheduleToolsOptions } from './scheduleTools.js';
export { withholdRecoverable } from './withholdRecoverable.js';
export type { WithholdRecoverableOptions } from './withholdRecoverable.js';
