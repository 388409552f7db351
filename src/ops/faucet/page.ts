/** The faucet's web page: one form, posting JSON to /faucet and showing the answer. */

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

export interface PageInfo {
  chainName: string
  symbol: string
  amount: string
  cooldown: string
}

export function faucetPage(info: PageInfo): string {
  const title = `${escapeHtml(info.chainName)} faucet`
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 36rem; margin: 3rem auto; padding: 0 1rem; color: #222; }
  input { width: 100%; box-sizing: border-box; padding: .5rem; font: inherit; font-family: ui-monospace, monospace; }
  button { margin-top: .75rem; padding: .5rem 1.25rem; font: inherit; cursor: pointer; }
  #result { margin-top: 1rem; word-break: break-all; }
  .error { color: #b00020; }
</style>
</head>
<body>
<h1>${title}</h1>
<p>Sends <strong>${escapeHtml(info.amount)} ${escapeHtml(info.symbol)}</strong> of test coins, once per address and per
visitor every ${escapeHtml(info.cooldown)}. Test coins have no value.</p>
<form id="form">
  <label for="address">Your address</label>
  <input id="address" name="address" placeholder="0x…" autocomplete="off" required pattern="0x[0-9a-fA-F]{40}">
  <button type="submit">Send me ${escapeHtml(info.symbol)}</button>
</form>
<div id="result" role="status"></div>
<script>
document.getElementById('form').addEventListener('submit', async (e) => {
  e.preventDefault()
  const out = document.getElementById('result')
  out.className = ''
  out.textContent = 'Sending…'
  try {
    const res = await fetch('faucet', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: document.getElementById('address').value.trim() }),
    })
    const body = await res.json()
    if (res.ok) out.textContent = 'Sent ' + body.amount + ' in transaction ' + body.txHash
    else { out.className = 'error'; out.textContent = body.error }
  } catch (err) {
    out.className = 'error'
    out.textContent = 'The faucet did not answer: ' + err.message
  }
})
</script>
</body>
</html>
`
}
