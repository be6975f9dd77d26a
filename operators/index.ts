export { assembleBlocks } from './assembleBlocks.js';
