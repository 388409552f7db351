/**
 * Differential test of the fast interpreter (src/evm/fast) against ethereumjs: the same eth_call
 * messages answered with the fast path on and off must give the same return data, gas used, error
 * and revert flag — and the fast path must really answer them (no bail-out) except where it is
 * meant to bail out, where the answer must still be right.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compileBench } from '../../../test/helpers/compile.js'
import { keccak256 } from '../../util/crypto.js'
import type { CallRequest } from '../call.js'
import { differential, initCodeFor, openDiffChain, shown } from '../../../test/helpers/fastEvm.js'

const PROBE_SOL = `
pragma solidity ^0.8.24;
contract Child { uint256 public x = 1; }
contract Probe {
  uint256 public stored;
  mapping(uint256 => uint256) public m;
  event Ping(uint256 indexed a, bytes data);
  constructor() payable { stored = 7; m[1] = 11; }
  function gasTrail(address t) external view returns (uint256[8] memory g) {
    g[0] = gasleft();
    uint256 x = m[1];
    g[1] = gasleft();
    x += m[1];
    g[2] = gasleft();
    x += t.balance;
    g[3] = gasleft();
    x += t.code.length;
    g[4] = gasleft();
    (bool ok, ) = t.staticcall(abi.encodeWithSignature("stored()"));
    g[5] = gasleft();
    g[6] = ok ? 1 : 0;
    g[7] = x;
  }
  function writeRead(uint256 k, uint256 v) external returns (uint256 a, uint256 b, uint256 c, uint256 g) {
    m[k] = v;
    a = m[k];
    m[k] = 0;
    b = m[k];
    assembly { tstore(k, v) c := tload(k) }
    stored = v;
    g = gasleft();
    emit Ping(v, abi.encode(a, b));
  }
  function revertWith(string calldata why) external { stored = 99; revert(why); }
  function panic() external pure returns (uint256) { uint256[] memory a = new uint256[](1); return a[2]; }
  function catchRevert(address t) external returns (bytes memory r, uint256 s, uint256 g, bool ok) {
    stored = 5;
    try Probe(payable(t)).revertWith("nested no") { ok = true; } catch (bytes memory reason) { r = reason; }
    s = Probe(payable(t)).stored();
    g = gasleft();
  }
  function burn() external pure returns (uint256 i) { while (true) { i++; } }
  function callBurn(address t, uint256 gas) external returns (bool ok, uint256 g, uint256 rds) {
    (ok, ) = t.call{gas: gas}(abi.encodeWithSignature("burn()"));
    g = gasleft();
    assembly { rds := returndatasize() }
  }
  function write() external { stored = 1; }
  function staticViolation(address t) external view returns (bool ok, uint256 g) {
    (ok, ) = t.staticcall(abi.encodeWithSignature("write()"));
    g = gasleft();
  }
  function chain(address[] calldata hops, uint256 mode) external returns (uint256 depth, uint256 g, address self, address sender) {
    g = gasleft();
    self = address(this);
    sender = msg.sender;
    if (hops.length == 0) return (0, g, self, sender);
    address next = hops[0];
    bytes memory data = abi.encodeWithSignature("chain(address[],uint256)", hops[1:], mode);
    bool ok; bytes memory ret;
    if (mode % 3 == 0) (ok, ret) = next.call(data);
    else if (mode % 3 == 1) (ok, ret) = next.staticcall(data);
    else (ok, ret) = next.delegatecall(data);
    require(ok, "hop failed");
    (depth, , , ) = abi.decode(ret, (uint256, uint256, address, address));
    depth += 1;
    g = gasleft();
  }
  function envs() external view returns (uint256[12] memory e) {
    e[0] = uint256(blockhash(block.number - 1));
    e[1] = uint256(blockhash(block.number));
    e[2] = block.number;
    e[3] = block.timestamp;
    e[4] = uint256(uint160(address(block.coinbase)));
    e[5] = block.chainid;
    e[6] = block.basefee;
    e[7] = block.prevrandao;
    e[8] = block.gaslimit;
    e[9] = block.blobbasefee;
    e[10] = uint256(blobhash(0));
    e[11] = address(this).balance + tx.gasprice + uint256(uint160(tx.origin));
  }
  function callOther(address e, uint256 value, bytes calldata data) external payable returns (bool ok, uint256 rds, uint256 g, bytes memory ret) {
    (ok, ret) = e.call{value: value}(data);
    assembly { rds := returndatasize() }
    g = gasleft();
  }
  function memAt(uint256 off) external pure returns (uint256 v) { assembly { mstore(off, 1) v := mload(off) } }
  function returnDataOob() external pure returns (uint256) { assembly { returndatacopy(0, 0, 1) } return 1; }
  function hashes(bytes calldata data) external pure returns (bytes32 a, bytes32 b, uint256 e) {
    a = keccak256(data);
    b = sha256(data);
    e = 3 ** 100 + uint256(keccak256(abi.encode(a))) % 7;
  }
  function ecrecoverOf(bytes32 h, uint8 v, bytes32 r, bytes32 s) external pure returns (address) { return ecrecover(h, v, r, s); }
  function mcopy(uint256 n) external pure returns (bytes memory out) {
    out = new bytes(n);
    for (uint256 i = 0; i < n; i++) out[i] = bytes1(uint8(i));
    bytes memory copy = new bytes(n);
    assembly { mcopy(add(copy, 32), add(out, 32), n) }
    out = copy;
  }
  function aggregate(address[] calldata targets, bytes[] calldata datas) external view returns (bytes[] memory out) {
    out = new bytes[](targets.length);
    for (uint256 i = 0; i < targets.length; i++) {
      (bool ok, bytes memory r) = targets[i].staticcall(datas[i]);
      out[i] = ok ? r : bytes("fail");
    }
  }
  function make() external returns (address a) { a = address(new Child()); }
  receive() external payable {}
}
`

function compileProbe(): string {
  const require = createRequire(import.meta.url)
  const solc = require('solc') as { compile(input: string): string }
  const out = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'Probe.sol': { content: PROBE_SOL } },
        settings: { evmVersion: 'prague', optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['evm.bytecode.object'] } } },
      }),
    ),
  )
  const errors = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error')
  if (errors.length > 0) throw new Error(JSON.stringify(errors))
  return out.contracts['Probe.sol'].Probe.evm.bytecode.object as string
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')
const word = (x: bigint | Uint8Array) => (typeof x === 'bigint' ? x.toString(16) : hex(x)).padStart(64, '0')
const bytes = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'))
/** abi: dynamic `bytes` argument at the head offset given. */
const abiBytes = (h: string) => word(BigInt(h.length / 2)) + h.padEnd(Math.ceil(h.length / 64) * 64, '0')
const addrArray = (list: Uint8Array[]) => word(BigInt(list.length)) + list.map((a) => word(a)).join('')

let dir: string
let ctx: Awaited<ReturnType<typeof openDiffChain>>
let probes: Uint8Array[] = []
let token: Uint8Array
let raw: Record<string, Uint8Array> = {}

/** Raw runtime programs for opcode-level cases (hex). */
const RAW: Record<string, string> = {
  invalidJump: '600456',
  jumpIntoPush: '6003566005005b00',
  stackUnderflow: '01',
  underflowDynamic: '6001' + '52', // MSTORE with one item: memory charged, then underflow
  invalidOpcode: 'fe',
  undefinedOpcode: '0c',
  push0AndMsize: '5f3560e01c5f52596020525f5f5e60405ff3',
  sstoreInStatic: '60015f55',
  tstoreInStatic: '60015f5d',
  logInStatic: '5f5fa0',
  bigMemory: '60016bffffffffffffffffffffff52',
  mediumMemory: '600162100000525960005260205ff3',
  returnDataOob: '60015f5f3e',
  returnDataZeroAtEnd: '5f5f5f3e00',
  calldataEcho: '365f5f37365ff3',
  codecopyPastEnd: '60406010600039' + '60405ff3',
  expBig: '7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff60030a5f5260205ff3',
  signedMath: '7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff6003056003077f80000000000000000000000000000000000000000000000000000000000000005f1d600c1b5f5260205260405ff3',
  selfdestruct: '33ff',
  create: '5f5f5ff05f5260205ff3',
  create2: '5f5f5f5ff55f5260205ff3',
  gasTight: '5a5f5260205ff3',
  blockhashes: '5f40600143034060014303405f5260205260405260605ff3',
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ibex-fast-'))
  ctx = await openDiffChain(dir)
  const probe = compileProbe()
  probes = await ctx.deploy([probe, probe, probe], 10n ** 15n)
  const supply = word(10n ** 24n)
  ;[token] = (await ctx.deploy([compileBench().BenchToken.bytecode.slice(2) + supply])) as [Uint8Array]
  const names = Object.keys(RAW)
  const addrs = await ctx.deploy(names.map((n) => initCodeFor(RAW[n] as string)))
  raw = Object.fromEntries(names.map((n, i) => [n, addrs[i] as Uint8Array]))
  // a few more blocks so BLOCKHASH has history
  await ctx.deploy([initCodeFor('00'), initCodeFor('00')])
}, 120_000)

afterAll(async () => {
  await ctx?.chain.db.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Runs every case both ways and expects equal answers; returns the cases the fast path bailed on. */
let answered = 0
async function compareAll(cases: [string, CallRequest, bigint][]): Promise<string[]> {
  const bailed: string[] = []
  answered = 0
  for (const [what, req, gas] of cases) {
    const d = await differential(ctx.env(), req, gas)
    expect({ what, ...shown(d.fast) }).toEqual({ what, ...shown(d.slow) })
    if (d.bailReason !== undefined) bailed.push(`${what}: ${d.bailReason}`)
    if (d.answered) answered++
  }
  return bailed
}

const sel = (sig: string) => hex(keccak256(Buffer.from(sig))).slice(0, 8)

describe('fast interpreter against ethereumjs', () => {
  it('answers ERC-20 views and state-changing calls exactly', async () => {
    const holder = ctx.from
    const stranger = bytes('42'.repeat(20))
    const cases: [string, CallRequest, bigint][] = [
      ['balanceOf holder', { to: token, data: bytes(sel('balanceOf(address)') + word(holder)) }, 1_000_000n],
      ['balanceOf stranger', { to: token, data: bytes(sel('balanceOf(address)') + word(stranger)) }, 1_000_000n],
      ['totalSupply', { to: token, data: bytes(sel('totalSupply()')) }, 1_000_000n],
      ['name', { to: token, data: bytes(sel('name()')) }, 1_000_000n],
      ['symbol', { to: token, data: bytes(sel('symbol()')) }, 1_000_000n],
      ['decimals', { to: token, data: bytes(sel('decimals()')) }, 1_000_000n],
      ['allowance', { to: token, data: bytes(sel('allowance(address,address)') + word(holder) + word(stranger)) }, 1_000_000n],
      ['transfer from holder', { from: holder, to: token, data: bytes(sel('transfer(address,uint256)') + word(stranger) + word(5n)) }, 1_000_000n],
      ['transfer beyond balance', { from: stranger, to: token, data: bytes(sel('transfer(address,uint256)') + word(holder) + word(5n)) }, 1_000_000n],
      ['transferFrom without allowance', { from: stranger, to: token, data: bytes(sel('transferFrom(address,address,uint256)') + word(holder) + word(stranger) + word(1n)) }, 1_000_000n],
      ['approve', { from: holder, to: token, data: bytes(sel('approve(address,uint256)') + word(stranger) + word(1n)) }, 1_000_000n],
      ['unknown selector', { to: token, data: bytes('deadbeef') }, 1_000_000n],
      ['balanceOf at tight gas', { to: token, data: bytes(sel('balanceOf(address)') + word(holder)) }, 23_500n],
      ['transfer at the SSTORE sentry', { from: holder, to: token, data: bytes(sel('transfer(address,uint256)') + word(stranger) + word(5n)) }, 27_000n],
    ]
    for (let g = 21_800n; g <= 30_000n; g += 400n) cases.push([`transfer at ${g}`, { from: holder, to: token, data: bytes(sel('transfer(address,uint256)') + word(stranger) + word(5n)) }, g + 20_000n])
    expect(await compareAll(cases)).toEqual([])
    expect(answered).toBe(cases.length)
  })

  it('answers the probe contract: gas, nesting, reverts, static violations, environment', async () => {
    const [p0, p1, p2] = probes as [Uint8Array, Uint8Array, Uint8Array]
    const eoa = bytes('77'.repeat(20))
    const empty = bytes('00'.repeat(19) + 'ab')
    const call = (sig: string, args = '') => bytes(sel(sig) + args)
    const chainArgs = (hops: Uint8Array[], mode: bigint) => word(0x40n) + word(mode) + addrArray(hops)
    const cases: [string, CallRequest, bigint][] = [
      ['gasTrail self', { to: p0, data: call('gasTrail(address)', word(p0)) }, 1_000_000n],
      ['gasTrail other', { to: p0, data: call('gasTrail(address)', word(p1)) }, 1_000_000n],
      ['gasTrail eoa', { to: p0, data: call('gasTrail(address)', word(eoa)) }, 1_000_000n],
      ['gasTrail precompile', { to: p0, data: call('gasTrail(address)', word(bytes('00'.repeat(19) + '02'))) }, 1_000_000n],
      ['writeRead', { to: p0, data: call('writeRead(uint256,uint256)', word(3n) + word(9n)) }, 1_000_000n],
      ['writeRead existing slot', { to: p0, data: call('writeRead(uint256,uint256)', word(1n) + word(0n)) }, 1_000_000n],
      ['revertWith', { to: p0, data: call('revertWith(string)', word(0x20n) + abiBytes(hex(Buffer.from('why not')))) }, 1_000_000n],
      ['panic', { to: p0, data: call('panic()') }, 1_000_000n],
      ['catchRevert', { to: p0, data: call('catchRevert(address)', word(p1)) }, 1_000_000n],
      ['catchRevert self', { to: p0, data: call('catchRevert(address)', word(p0)) }, 1_000_000n],
      ['burn', { to: p0, data: call('burn()') }, 200_000n],
      ['callBurn limited', { to: p0, data: call('callBurn(address,uint256)', word(p1) + word(50_000n)) }, 300_000n],
      ['callBurn all', { to: p0, data: call('callBurn(address,uint256)', word(p1) + word(10n ** 9n)) }, 300_000n],
      ['staticViolation', { to: p0, data: call('staticViolation(address)', word(p1)) }, 1_000_000n],
      ['chain call', { to: p0, data: call('chain(address[],uint256)', chainArgs([p1, p2, p0, p1], 0n)) }, 2_000_000n],
      ['chain staticcall', { to: p0, data: call('chain(address[],uint256)', chainArgs([p1, p2, p0], 1n)) }, 2_000_000n],
      ['chain delegatecall', { to: p0, data: call('chain(address[],uint256)', chainArgs([p1, p2], 2n)) }, 2_000_000n],
      ['chain deep', { to: p0, data: call('chain(address[],uint256)', chainArgs(Array.from({ length: 40 }, (_, i) => probes[i % 3] as Uint8Array), 0n)) }, 30_000_000n],
      ['chain through eoa fails', { to: p0, data: call('chain(address[],uint256)', chainArgs([p1, eoa], 0n)) }, 2_000_000n],
      ['envs', { to: p0, data: call('envs()') }, 1_000_000n],
      ['envs with from', { from: ctx.from, to: p0, data: call('envs()') }, 1_000_000n],
      ['call eoa', { to: p0, data: call('callOther(address,uint256,bytes)', word(eoa) + word(0n) + word(0x60n) + abiBytes('1234')) }, 1_000_000n],
      ['call eoa with value', { to: p0, data: call('callOther(address,uint256,bytes)', word(eoa) + word(5n) + word(0x60n) + abiBytes('')) }, 1_000_000n],
      ['call empty account with value', { to: p0, data: call('callOther(address,uint256,bytes)', word(empty) + word(5n) + word(0x60n) + abiBytes('')) }, 1_000_000n],
      ['call with value beyond balance', { to: p0, data: call('callOther(address,uint256,bytes)', word(eoa) + word(10n ** 20n) + word(0x60n) + abiBytes('')) }, 1_000_000n],
      ['call contract with value', { to: p0, data: call('callOther(address,uint256,bytes)', word(p1) + word(3n) + word(0x60n) + abiBytes('')) }, 1_000_000n],
      ['top-level value', { from: ctx.from, to: p0, value: 1000n, data: call('callOther(address,uint256,bytes)', word(p1) + word(1000n) + word(0x60n) + abiBytes('')) }, 1_000_000n],
      ['call identity precompile', { to: p0, data: call('callOther(address,uint256,bytes)', word(bytes('00'.repeat(19) + '04')) + word(0n) + word(0x60n) + abiBytes('c0ffee')) }, 1_000_000n],
      ['memAt small', { to: p0, data: call('memAt(uint256)', word(1000n)) }, 1_000_000n],
      ['memAt medium', { to: p0, data: call('memAt(uint256)', word(200_000n)) }, 1_000_000n],
      ['memAt huge', { to: p0, data: call('memAt(uint256)', word(1n << 40n)) }, 1_000_000n],
      ['memAt max', { to: p0, data: call('memAt(uint256)', word((1n << 256n) - 1n)) }, 1_000_000n],
      ['returnDataOob', { to: p0, data: call('returnDataOob()') }, 1_000_000n],
      ['hashes', { to: p0, data: call('hashes(bytes)', word(0x20n) + abiBytes('00ff'.repeat(40))) }, 1_000_000n],
      ['ecrecover', { to: p0, data: call('ecrecoverOf(bytes32,uint8,bytes32,bytes32)', word(5n) + word(27n) + word(7n) + word(9n)) }, 1_000_000n],
      ['mcopy', { to: p0, data: call('mcopy(uint256)', word(70n)) }, 1_000_000n],
      ['aggregate', { to: p0, data: call('aggregate(address[],bytes[])', word(0x40n) + word(0xa0n) + addrArray([token, p1, eoa]) + word(3n) + word(0x60n) + word(0xc0n) + word(0x100n) + abiBytes(sel('totalSupply()')) + abiBytes(sel('stored()')) + abiBytes('')) }, 1_000_000n],
      ['public getter', { to: p1, data: call('m(uint256)', word(1n)) }, 100_000n],
      ['receive with value', { from: ctx.from, to: p1, value: 5n }, 100_000n],
      ['to an eoa with data', { to: eoa, data: bytes('1234') }, 100_000n],
      ['to the identity precompile', { to: bytes('00'.repeat(19) + '04'), data: bytes('c0ffee') }, 100_000n],
      ['to sha256 out of gas', { to: bytes('00'.repeat(19) + '02'), data: bytes('c0ffee') }, 21_130n],
      ['below the EIP-7623 floor (runTx words it)', { to: bytes('00'.repeat(19) + '02'), data: bytes('c0ffee') }, 21_100n],
    ]
    expect(await compareAll(cases)).toEqual([])
    expect(answered).toBe(cases.length - 1)
  })

  it('answers raw opcode cases (errors, memory, static, environment)', async () => {
    const cases: [string, CallRequest, bigint][] = []
    for (const name of Object.keys(RAW)) {
      if (['selfdestruct', 'create', 'create2'].includes(name)) continue
      for (const gas of [21_000n, 21_010n, 21_100n, 30_000n, 100_000n, 10_000_000n]) cases.push([`${name} @${gas}`, { to: raw[name] as Uint8Array, data: bytes('aabbccdd00112233') }, gas])
    }
    // static-context violations through a STATICCALL from the probe
    const [p0] = probes as [Uint8Array]
    for (const name of ['sstoreInStatic', 'tstoreInStatic', 'logInStatic']) {
      cases.push([`${name} via staticcall`, { to: p0, data: bytes(sel('aggregate(address[],bytes[])') + word(0x40n) + word(0x80n) + addrArray([raw[name] as Uint8Array]) + word(1n) + word(0x20n) + abiBytes('')) }, 1_000_000n])
    }
    expect(await compareAll(cases)).toEqual([])
  })

  it('bails out on what it does not implement and still answers right', async () => {
    const [p0] = probes as [Uint8Array]
    const cases: [string, CallRequest, bigint][] = [
      ['SELFDESTRUCT', { to: raw.selfdestruct as Uint8Array }, 100_000n],
      ['CREATE', { to: raw.create as Uint8Array }, 200_000n],
      ['CREATE2', { to: raw.create2 as Uint8Array }, 200_000n],
      ['new contract from solidity', { to: p0, data: bytes(sel('make()')) }, 3_000_000n],
      ['KZG precompile (async)', { to: p0, data: bytes(sel('callOther(address,uint256,bytes)') + word(bytes('00'.repeat(19) + '0a')) + word(0n) + word(0x60n) + abiBytes('00')) }, 1_000_000n],
      ['BLS precompile (async) at top level', { to: bytes('00'.repeat(19) + '0b'), data: bytes('00') }, 1_000_000n],
    ]
    const bailed = await compareAll(cases)
    expect(bailed.map((b) => b.split(':')[0])).toEqual(cases.map(([what]) => what))
  })
})
