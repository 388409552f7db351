// Types of compile-contracts.js for the TypeScript tests (test/dao).
/** buildAll: absolute path → contents of every file `npm run contracts` writes. */
export function buildAll(log?: (line: string) => void): Promise<Map<string, string>>
