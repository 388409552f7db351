import { describe, expect, it, vi } from 'vitest'
import { assertEvmVersion, EVM_VERSION, EvmVersionError, ethereumjsInterpreter as loadOriginals } from './patches.js'

const entry = import.meta.resolve('@ethereumjs/evm')
const { Interpreter } = (await import(new URL('./interpreter.js', entry).href)) as {
  Interpreter: { prototype: Record<string, unknown> }
}
const ethereumjsInterpreter = await loadOriginals()
const PATCHED = ['run', 'runStep', '_runStepHook', '_getValidJumpDestinations'] as const

describe('EVM patches', () => {
  it('are installed at import, on the interpreter ethereumjs runs', () => {
    for (const name of PATCHED) {
      expect(typeof ethereumjsInterpreter[name]).toBe('function')
      expect(Interpreter.prototype[name]).not.toBe(ethereumjsInterpreter[name])
    }
  })

  it('install once: a second copy of the module finds them and wraps nothing again', async () => {
    const before = PATCHED.map((name) => Interpreter.prototype[name])
    // a fresh module registry makes a second instance of the module
    vi.resetModules()
    const again = (await import('./patches.js')) as { ethereumjsInterpreter: typeof loadOriginals }
    const theirs = await again.ethereumjsInterpreter()
    expect(PATCHED.map((name) => Interpreter.prototype[name])).toEqual(before)
    // both copies know ethereumjs' own methods, not a wrapper
    expect(theirs).toBe(ethereumjsInterpreter)
  })

  it('refuse an @ethereumjs/evm version they were not written for', () => {
    expect(() => assertEvmVersion(EVM_VERSION)).not.toThrow()
    expect(() => assertEvmVersion('10.2.0')).toThrow(EvmVersionError)
    expect(() => assertEvmVersion('10.2.0')).toThrow(/@ethereumjs\/evm 10\.2\.0 is installed.*written for 10\.1\.3/)
  })

  it('are written for the installed version (package.json pins it)', async () => {
    const { readFileSync } = await import('node:fs')
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      dependencies: Record<string, string>
    }
    expect(pkg.dependencies['@ethereumjs/evm']).toBe(EVM_VERSION)
  })
})
