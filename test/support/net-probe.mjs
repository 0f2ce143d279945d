// What a process can reach from where it runs — run by the tests inside an agent's network
// namespace (nsenter), as root or as another user (setpriv). Takes a JSON list of tries as its
// one argument and prints one JSON list of answers:
//   { kind: 'http', host, port, method, path, headers?, body? } → { status } | { error }
//   { kind: 'tcp', host, port }                                  → { connected: true } | { error }
//   { kind: 'connect', proxyPort, target: 'host:port' }          → { status } (the proxy's answer to CONNECT)
import { request } from 'node:http';
import { connect } from 'node:net';

const TIMEOUT_MS = 4000;

function http({ host, port, method = 'GET', path, headers = {}, body }) {
  return new Promise((resolve) => {
    const req = request({ host, port, method, path, headers, timeout: TIMEOUT_MS }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode, body: text.slice(0, 200) }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error) => resolve({ error: error.code ?? error.message }));
    req.end(body);
  });
}

function tcp({ host, port }) {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: TIMEOUT_MS });
    socket.once('connect', () => {
      socket.destroy();
      resolve({ connected: true });
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve({ error: 'timeout' });
    });
    socket.once('error', (error) => resolve({ error: error.code ?? error.message }));
  });
}

function tunnel({ proxyPort, target }) {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: proxyPort, timeout: 15_000 });
    let text = '';
    socket.once('connect', () => socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`));
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      const line = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (line) {
        socket.destroy();
        resolve({ status: Number(line[1]), body: text.split('\r\n\r\n')[1]?.slice(0, 300) ?? '' });
      }
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve({ error: 'timeout' });
    });
    socket.once('error', (error) => resolve({ error: error.code ?? error.message }));
  });
}

const tries = JSON.parse(process.argv[2]);
const answers = [];
for (const attempt of tries) {
  if (attempt.kind === 'http') answers.push(await http(attempt));
  else if (attempt.kind === 'tcp') answers.push(await tcp(attempt));
  else answers.push(await tunnel(attempt));
}
process.stdout.write(JSON.stringify(answers));
