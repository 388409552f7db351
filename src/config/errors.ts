/**
 * ConfigError is what every configuration problem throws: a bad flag, a bad key in the TOML file,
 * an unreadable genesis.json, a malformed validator key. Its message is ONE line naming the flag,
 * key or file and what is accepted; the CLI prints it as `ibex: <message>` and exits 2.
 */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

/**
 * ValueProblem is thrown by a value parser (src/config/values.ts) without knowing where the value
 * came from; load.ts turns it into a ConfigError naming the flag or the file key.
 * `expected` problems ("expected an integer 0-65535") get the offending value appended by the
 * caller; specific problems ("unknown namespace \"foo\" …") already name it.
 */
export class ValueProblem extends Error {
  override name = 'ValueProblem'

  constructor(
    message: string,
    readonly kind: 'expected' | 'specific' = 'expected',
  ) {
    super(message)
  }
}
