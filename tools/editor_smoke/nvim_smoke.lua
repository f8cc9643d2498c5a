-- Drive Neovim 0.7's LSP client against `idlc lsp`, headless.  Run by run.sh:
--   nvim --headless -u nvim-init.lua -c "luafile nvim_smoke.lua" WORKSPACE/b.idl
-- nvim-init.lua (the setup docs/editors.md shows) starts and attaches the server; this prints
-- vim.diagnostic.get(), a hover, where vim.lsp.buf.definition() lands, the formatting and a
-- rename, then quits with status 1 if one of them did not give what is expected.

local failures = 0
local main -- the checks, below; run at the end so that an error quits with status 1

local function say(...)
  io.stdout:write(string.format(...) .. "\n")
end

local function check(what, ok)
  say("%s: %s", ok and "ok" or "FAIL", what)
  if not ok then
    failures = failures + 1
  end
  return ok
end

local function text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n") .. "\n"
end

-- Put the cursor on the first occurrence of `pattern` (plain text) in the current buffer.
local function goto_text(pattern)
  for number, line in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
    local col = line:find(pattern, 1, true)
    if col then
      vim.api.nvim_win_set_cursor(0, { number, col - 1 })
      return
    end
  end
  error("not found: " .. pattern)
end

function main()
local b = vim.api.nvim_get_current_buf()
local v = vim.version()
say("Neovim %d.%d.%d, idlc on PATH: %s", v.major, v.minor, v.patch, vim.fn.exepath("idlc"))
say("filetype of %s: %s", vim.fn.fnamemodify(vim.api.nvim_buf_get_name(b), ":t"), vim.bo.filetype)

local client
if not check("client started and initialized", vim.wait(30000, function()
  client = vim.lsp.buf_get_clients(b)[next(vim.lsp.buf_get_clients(b)) or 0]
  return client ~= nil and client.initialized
end, 50)) then
  return -- the log: vim.lsp.get_log_path()
end
say("client: %s, root_dir %s", client.name, client.config.root_dir)

-- 1. Diagnostics
check("diagnostics arrived", vim.wait(30000, function()
  return #vim.diagnostic.get(b) > 0
end, 50))
say("--- vim.diagnostic.get() of b.idl")
for _, d in ipairs(vim.diagnostic.get(b)) do
  say("%d:%d-%d:%d severity=%d code=%s source=%s %q", d.lnum + 1, d.col, d.end_lnum + 1, d.end_col,
    d.severity, tostring(d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)),
    tostring(d.source), d.message)
end
check("E0101 on Proflie", vim.tbl_count(vim.tbl_filter(function(d)
  return d.message:find("unknown type `Proflie`", 1, true) ~= nil
end, vim.diagnostic.get(b))) == 1)

-- 2. Hover on the use of Profile: the request vim.lsp.buf.hover() makes.
goto_text("Profile {")
local replies = vim.lsp.buf_request_sync(b, "textDocument/hover", vim.lsp.util.make_position_params(), 10000)
local hover = ""
for _, reply in pairs(replies or {}) do
  if reply.result then
    local contents = reply.result.contents
    hover = contents.value or vim.inspect(contents)
  end
end
say("--- hover on `Profile` (b.idl line %d)\n%s", vim.api.nvim_win_get_cursor(0)[1], hover)
check("hover shows the record, where it is declared and its docs",
  hover:find("record", 1, true) ~= nil and hover:find("declared in `a.idl`", 1, true) ~= nil
  and hover:find("A person's public profile", 1, true) ~= nil)

-- ... and as a person sees it: the floating window of vim.lsp.buf.hover().
local function floating()
  return vim.tbl_filter(function(win)
    return vim.api.nvim_win_get_config(win).relative ~= ""
  end, vim.api.nvim_list_wins())
end
vim.lsp.buf.hover()
check("hover window opened", vim.wait(10000, function() return #floating() > 0 end, 50))
for _, win in ipairs(floating()) do
  say("--- floating hover window\n%s", text(vim.api.nvim_win_get_buf(win)))
  vim.api.nvim_win_close(win, true)
end

-- 3. Go to definition: vim.lsp.buf.definition() (what gd is usually mapped to).
goto_text("Profile {")
vim.lsp.buf.definition()
local landed = vim.wait(10000, function()
  return vim.fn.fnamemodify(vim.api.nvim_buf_get_name(0), ":t") == "a.idl"
end, 50)
local row, col = unpack(vim.api.nvim_win_get_cursor(0))
say("--- vim.lsp.buf.definition() on `Profile` lands in %s line %d column %d: %q",
  vim.fn.fnamemodify(vim.api.nvim_buf_get_name(0), ":t"), row, col, vim.api.nvim_get_current_line())
check("definition is in a.idl on `type Profile`", landed and vim.api.nvim_get_current_line():sub(col + 1, col + 7) == "Profile")
local a = vim.api.nvim_get_current_buf() -- a.idl, opened by the jump
vim.api.nvim_set_current_buf(b)

-- 4. Formatting: vim.lsp.buf.formatting_sync() (0.7's name; vim.lsp.buf.format() from 0.8).
vim.lsp.buf.formatting_sync(nil, 10000)
say("--- b.idl after vim.lsp.buf.formatting_sync()\n%s", text(b))
check("the over-indented member is re-indented",
  text(b):find('\n  operation fetch id "directory:fetch" : atom-ref<Note> -> Profile {', 1, true) ~= nil)

-- 5. Quick fix: vim.lsp.buf.code_action() on the misspelling, once the diagnostics are back
-- after the formatting; the menu (vim.ui.select) is answered with its first item.
goto_text("Proflie")
check("the misspelling is reported again after the formatting", vim.wait(10000, function()
  return #vim.diagnostic.get(b, { lnum = 2 }) > 0
end, 50))
vim.ui.select = function(items, opts, on_choice)
  say("[vim.ui.select answered with the first of %d] %s", #items,
    (opts.format_item or tostring)(items[1]))
  on_choice(items[1], 1)
end
vim.lsp.buf.code_action()
vim.wait(10000, function() return text(b):find("Proflie", 1, true) == nil end, 50)
say("--- line 3 of b.idl after vim.lsp.buf.code_action()\n%s", vim.api.nvim_buf_get_lines(b, 2, 3, false)[1])
check("the misspelling is replaced",
  text(b):find('-> Profile { call id "directory:lookup:call"', 1, true) ~= nil)
check("the diagnostics are cleared", vim.wait(10000, function()
  return #vim.diagnostic.get(b) == 0
end, 50))

-- 6. Rename: vim.lsp.buf.rename("Portrait"), across both files.
goto_text("Profile {")
vim.lsp.buf.rename("Portrait")
vim.wait(10000, function() return text(a):find("Portrait", 1, true) ~= nil end, 50)
say("--- after vim.lsp.buf.rename('Portrait')\n== a.idl\n%s== b.idl\n%s", text(a), text(b))
check("renamed in both files", text(a):find("type Portrait = record", 1, true) ~= nil
  and text(b):find('-> Portrait { call id "directory:lookup:call"', 1, true) ~= nil
  and text(b):find('-> Portrait { call id "directory:fetch:call"', 1, true) ~= nil
  and text(a):find("Profile", 1, true) == nil and text(b):find("Profile", 1, true) == nil)
vim.wait(1000)
check("no diagnostics after the rename", #vim.diagnostic.get(b) == 0)
for _, d in ipairs(vim.diagnostic.get(b)) do
  say("%d:%d %q", d.lnum + 1, d.col, d.message)
end

vim.lsp.stop_client(client.id)
vim.wait(3000, function() return client.is_stopped() end, 50)
end

local ok, err = pcall(main)
if not ok then
  check("no error in the checks: " .. tostring(err), false)
end
say("neovim: %s", failures == 0 and "all checks passed" or (failures .. " check(s) FAILED"))
vim.cmd(failures == 0 and "qall!" or "cquit! 1")
