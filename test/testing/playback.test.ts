import { describe, expect, it } from 'vitest';
import { createPlayback } from '../../src/testing/playback.js';

describe('createPlayback', () => {
  it('runs each listener once, in the order added, skipping removed ones; a second abort does nothing', () => {
    const playback = createPlayback();
    const log: string[] = [];
    const removed = (): void => void log.push('removed');
    playback.signal.addEventListener('abort', () => log.push('first'), { once: true });
    playback.signal.addEventListener('abort', removed, { once: true });
    playback.signal.addEventListener('abort', () => log.push(`third, aborted ${playback.signal.aborted}`), { once: true });
    playback.signal.removeEventListener('abort', removed);
    expect(playback.signal.aborted).toBe(false);
    playback.abort();
    playback.abort();
    expect(log).toEqual(['first', 'third, aborted true']);
    expect(playback.signal.aborted).toBe(true);
  });
});
