;;; eglot-init.el --- the Emacs (eglot) setup of docs/editors.md, word for word

(define-derived-mode idl-mode prog-mode "IDL"
  "Major mode for idlc interface definitions."
  (setq-local comment-start "// "))
(add-to-list 'auto-mode-alist '("\\.idl\\'" . idl-mode))

(with-eval-after-load 'eglot
  (add-to-list 'eglot-server-programs '(idl-mode . ("idlc" "lsp"))))
(add-hook 'idl-mode-hook #'eglot-ensure)
