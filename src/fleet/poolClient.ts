/**
 * A client checked out of the pool for one transaction, handed back afterwards.
 *
 * A pg client emits 'error' when its connection dies (the server stops, the network drops),
 * and pg-pool listens only while a client is idle. An 'error' event with no listener is an
 * uncaught exception: a run whose database went away while one of its writes was in flight
 * ended with exit 1 and no result line, instead of its typed `turn_setup_failed` (seen once in
 * test/fleet/databaseLost under load). The same failure also rejects the query in flight, which
 * is where callers report it; here it only marks the client broken, so the pool destroys it
 * instead of lending a dead connection to the next caller.
 */
import type pg from 'pg';

export async function withPoolClient<T>(pool: pg.Pool, use: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (error: Error): void => {
    broken ??= error;
  };
  client.on('error', onError);
  try {
    return await use(client);
  } finally {
    client.release(broken);
    // A destroyed client may still report its end; a returned one has the pool's idle listener again.
    if (broken === undefined) client.off('error', onError);
  }
}
