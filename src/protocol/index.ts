export * from './content.js';
export * from './request.js';
export * from './events.js';
export * from './errors.js';
