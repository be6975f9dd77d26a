/**
 * Streams one file through a line matcher for Grep: reads 64 KB at a time, refuses binary files
 * from the first chunk, and skips the line split for chunks the regex cannot match at all.
 */
import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { looksBinary } from './fileKind.js';

const CHUNK_BYTES = 64 * 1024;

export interface LineMatcher {
  readonly regex: RegExp;
  /**
   * A multiline twin of `regex` tested on a whole chunk of complete lines first. Sound because a
   * line that matches `regex` also matches inside the chunk; absent when the pattern has
   * lookaround (which could see across the line break).
   */
  readonly prefilter?: RegExp;
}

export interface ScanSink {
  /** Called for every line when the chunk may match (the sink decides what to keep). */
  line(text: string, lineNo: number, matched: boolean): void;
  /** Whether `line` must also see lines of chunks the prefilter ruled out (context output). */
  readonly wantsUnmatchedLines: boolean;
  /** Return true to stop reading the file (files_with_matches found one). */
  readonly done: () => boolean;
}

export type ScanOutcome = 'scanned' | 'binary' | 'unreadable';

export async function scanFile(path: string, matcher: LineMatcher, sink: ScanSink): Promise<ScanOutcome> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return 'unreadable';
  }
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    const decoder = new StringDecoder('utf8');
    let carry = '';
    let lineNo = 0;
    let first = true;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, null);
      if (first) {
        if (looksBinary(buffer, bytesRead)) return 'binary';
        first = false;
      }
      const eof = bytesRead === 0;
      const text = carry + (eof ? decoder.end() : decoder.write(buffer.subarray(0, bytesRead)));
      let complete: string;
      if (eof) {
        complete = text;
        carry = '';
        if (complete === '') break;
      } else {
        const cut = text.lastIndexOf('\n');
        if (cut === -1) {
          carry = text;
          continue;
        }
        complete = text.slice(0, cut);
        carry = text.slice(cut + 1);
      }
      if (matcher.prefilter && !matcher.prefilter.test(complete)) {
        if (sink.wantsUnmatchedLines) {
          for (const line of splitLines(complete, eof)) sink.line(line, ++lineNo, false);
        } else {
          lineNo += countLines(complete, eof);
        }
      } else {
        for (const line of splitLines(complete, eof)) {
          lineNo++;
          sink.line(line, lineNo, matcher.regex.test(line));
          if (sink.done()) return 'scanned';
        }
      }
      if (eof || sink.done()) break;
    }
    return 'scanned';
  } finally {
    await handle.close();
  }
}

function splitLines(complete: string, eof: boolean): string[] {
  const lines = complete.split('\n');
  // At EOF the text may end with the file's final newline, which ends a line, not starts one.
  if (eof && lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function countLines(complete: string, eof: boolean): number {
  let count = 1;
  for (let at = complete.indexOf('\n'); at !== -1; at = complete.indexOf('\n', at + 1)) count++;
  if (eof && complete.endsWith('\n')) count--;
  return count;
}
