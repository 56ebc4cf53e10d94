-- Headless Neovim as a plain LSP client for ToonLens (Neovim ≥ 0.7: vim.lsp.start_client).
-- Env: TOONLENS_SERVER (path of dist/server.js), TOONLENS_ROOT (workspace), TOONLENS_FILES (one path per line),
--      TOONLENS_TIMEOUT_MS. Prints one JSON line per file: { file, diagnostics, codeLenses }.
local out = function(s) io.stdout:write(s .. '\n') end
local server = os.getenv('TOONLENS_SERVER')
local root = os.getenv('TOONLENS_ROOT')
local timeout = tonumber(os.getenv('TOONLENS_TIMEOUT_MS') or '20000')
local files = {}
for line in (os.getenv('TOONLENS_FILES') or ''):gmatch('[^\n]+') do table.insert(files, line) end

local diags = {}
local client_id = vim.lsp.start_client({
  name = 'toonlens',
  cmd = { 'node', server, '--stdio' },
  root_dir = root,
  workspace_folders = { { uri = vim.uri_from_fname(root), name = 'root' } },
  handlers = {
    ['textDocument/publishDiagnostics'] = function(_, result)
      if result then diags[result.uri] = result.diagnostics end
    end,
  },
})
if not client_id then out('{"error":"server did not start"}'); vim.cmd('cquit 2') end

for _, f in ipairs(files) do
  vim.cmd('edit ' .. vim.fn.fnameescape(f))
  local bufnr = vim.api.nvim_get_current_buf()
  if f:match('%.md$') then vim.bo[bufnr].filetype = 'markdown' elseif f:match('%.json$') then vim.bo[bufnr].filetype = 'json' end
  vim.lsp.buf_attach_client(bufnr, client_id)
  local uri = vim.uri_from_bufnr(bufnr)
  vim.wait(timeout, function() return diags[uri] ~= nil end, 50)
  local client = vim.lsp.get_client_by_id(client_id)
  local lenses = nil
  vim.wait(timeout, function()
    local resp = client.request_sync('textDocument/codeLens', { textDocument = { uri = uri } }, 5000, bufnr)
    if resp and resp.result and #resp.result > 0 then lenses = resp.result return true end
    return false
  end, 200)
  out(vim.fn.json_encode({ file = f, uri = uri, diagnostics = diags[uri] or vim.NIL, codeLenses = lenses or {} }))
end
vim.lsp.stop_client(client_id)
vim.wait(500)
vim.cmd('qa!')
