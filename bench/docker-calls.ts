/**
 * What one call to the container engine costs, the two ways hydra could make it: the docker CLI
 * (what src/engine/container/docker.ts spawns) against an HTTP request on the engine's socket
 * (what dockerode would send), for the calls a race makes per agent besides the run itself
 * (`docker ps` with a label filter, `docker image inspect`). Prints medians in milliseconds.
 *
 *   npx esbuild bench/docker-calls.ts --bundle --platform=node --format=esm --loader:.sh=text \
 *     --outfile=.cache/bench/docker-calls.mjs && node .cache/bench/docker-calls.mjs [--repeats N]
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { docker } from '../src/engine/container/index.js';
import { median, round } from './lib/stats.js';

const at = process.argv.indexOf('--repeats');
const repeats = at < 0 ? 20 : Number(process.argv[at + 1]);
const socketPath = '/var/run/docker.sock';

const overSocket = (path: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const request = http.request({ socketPath, path, method: 'GET' }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', reject);
    request.end();
  });

const time = async (run: () => Promise<unknown>): Promise<number> => {
  const samples: number[] = [];
  await run();
  for (let i = 0; i < repeats; i += 1) {
    const start = performance.now();
    await run();
    samples.push(performance.now() - start);
  }
  return round(median(samples));
};

const filter = encodeURIComponent(JSON.stringify({ label: ['io.hydra.managed=1'] }));
const rows = {
  'ps (label filter)': {
    cli: await time(() => docker('default', ['ps', '-q', '--filter', 'label=io.hydra.managed=1'])),
    http: await time(() => overSocket(`/containers/json?filters=${filter}`)),
  },
  'image inspect': {
    cli: await time(() =>
      docker('default', ['image', 'inspect', '--format', '{{.Id}}', 'no-such-image:bench']),
    ),
    http: await time(() => overSocket('/images/no-such-image:bench/json')),
  },
  version: {
    cli: await time(() => docker('default', ['version', '--format', '{{.Server.Version}}'])),
    http: await time(() => overSocket('/version')),
  },
};
console.log(`median of ${repeats} calls, ms (docker CLI vs HTTP on ${socketPath})`);
for (const [name, row] of Object.entries(rows))
  console.log(`${name.padEnd(20)} cli ${row.cli}  http ${row.http}  ratio ${round(row.cli / row.http)}`);
