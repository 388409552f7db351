/**
 * The bare node:http server of the framing ceiling: answers every POST with a fixed JSON-RPC
 * reply after reading the body, keep-alive, nothing else. What any Node.js JSON-RPC server on
 * this machine can at best reach; ibex's floors are ratios to it.
 *
 *   node dist/bench/peers/bare-server.js PORT
 */
import { createServer } from 'node:http'

const REPLY = Buffer.from('{"jsonrpc":"2.0","id":1,"result":"0x539"}')
const port = Number(process.argv[2] ?? 0)

const server = createServer({ keepAlive: true, keepAliveTimeout: 120_000 }, (req, res) => {
  req.on('data', () => {})
  req.on('end', () => {
    res.statusCode = 200
    res.setHeader('Content-Type', 'application/json')
    res.end(REPLY)
  })
})
server.listen(port, '127.0.0.1', () => {
  const a = server.address()
  console.log(`listening on http://127.0.0.1:${typeof a === 'object' && a ? a.port : port}`)
})
process.on('SIGTERM', () => server.close(() => process.exit(0)))
