/**
 * The command's own stdout and stderr. Every byte we print passes here: the API key is replaced
 * wherever it shows up, even in text a hostile endpoint echoed back as the model's reply or in an
 * error body. Once stdout is closed under us (`rxagent -p … | head -1`: the reader left), nothing
 * more is written anywhere, not even an error, and the process leaves with 141.
 */
import { redact } from '../errors.js';

const apiKey = process.env['ANTHROPIC_API_KEY'];
const authToken = process.env['ANTHROPIC_AUTH_TOKEN'];
const scrub = (text: string): string => redact(redact(text, apiKey), authToken);

/** Set once stdout is closed under us. */
let stdoutClosed = false;
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  stdoutClosed = true;
  process.exit(141);
});

export const writeOut = (text: string) => void (stdoutClosed || process.stdout.write(scrub(text)));
export const writeErr = (text: string) => void (stdoutClosed || process.stderr.write(scrub(text)));
