-- The Neovim 0.7 setup of docs/editors.md, as the smoke test loads it (nvim -u nvim-init.lua).
-- Neovim 0.7 has vim.lsp.start_client, not vim.lsp.start (0.8) nor vim.fs.root (0.10).
vim.cmd([[autocmd BufNewFile,BufRead *.idl setlocal filetype=idl]])

local idlc_clients = {} -- root folder -> client id: one server per project

vim.api.nvim_create_autocmd("FileType", {
  pattern = "idl",
  callback = function(args)
    local dir = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(args.buf), ":p:h")
    local root = dir
    local pyproject = vim.fn.findfile("pyproject.toml", dir .. ";")
    local git = vim.fn.finddir(".git", dir .. ";")
    if pyproject ~= "" then
      root = vim.fn.fnamemodify(pyproject, ":p:h")
    elseif git ~= "" then
      root = vim.fn.fnamemodify(git, ":p:h:h")
    end
    local id = idlc_clients[root]
    if id == nil or vim.lsp.get_client_by_id(id) == nil then
      id = vim.lsp.start_client({
        name = "idlc",
        cmd = { "idlc", "lsp" },
        cmd_cwd = root, -- file names in hovers are shown relative to the server's folder
        root_dir = root,
      })
      idlc_clients[root] = id
    end
    vim.lsp.buf_attach_client(args.buf, id)
  end,
})
