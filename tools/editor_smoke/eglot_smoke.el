;;; eglot_smoke.el --- drive eglot against `idlc lsp' in `emacs --batch'  -*- lexical-binding: t -*-
;;
;; Run by run.sh: emacs --batch -l eglot_smoke.el WORKSPACE
;; Loads eglot-init.el (the setup docs/editors.md shows), opens WORKSPACE/b.idl, and prints
;; what eglot's own commands give: flymake diagnostics, hover, go to definition,
;; formatting, rename.  Exits 1 if one of them did not give what is expected.

(require 'cl-lib)
(require 'subr-x)

(defvar smoke-dir (file-name-directory (or load-file-name buffer-file-name)))
(defvar smoke-ws (file-name-as-directory (expand-file-name (car command-line-args-left))))
(setq command-line-args-left nil)
(defvar smoke-failures 0)

(defun smoke-say (fmt &rest args)
  (princ (concat (apply #'format fmt args) "\n")))

(defun smoke-check (what ok)
  (smoke-say "%s: %s" (if ok "ok" "FAIL") what)
  (unless ok (cl-incf smoke-failures))
  ok)

(defun smoke-wait (pred &optional seconds)
  "Let processes run until PRED is non-nil or SECONDS (default 30) pass."
  (let ((deadline (+ (float-time) (or seconds 30))) value)
    (while (and (not (setq value (funcall pred))) (< (float-time) deadline))
      (accept-process-output nil 0.1))
    value))

(defun smoke-diagnostics ()
  (mapcar (lambda (d)
            (save-excursion
              (goto-char (flymake-diagnostic-beg d))
              (format "%s:%d:%d-%d %s %S" (buffer-name) (line-number-at-pos) (current-column)
                      (- (flymake-diagnostic-end d) (line-beginning-position))
                      (flymake-diagnostic-type d) (flymake-diagnostic-text d))))
          (flymake-diagnostics)))

(defun smoke-goto (text nth)
  "Put point at the start of the NTH (1-based) occurrence of TEXT."
  (goto-char (point-min))
  (search-forward text nil nil nth)
  (goto-char (match-beginning 0)))

(defun smoke-buffer-text (file)
  (with-current-buffer (find-buffer-visiting (expand-file-name file smoke-ws))
    (buffer-substring-no-properties (point-min) (point-max))))

;; In batch no command loop runs, so answer eglot's questions here (and say so).
(fset 'y-or-n-p (lambda (prompt) (smoke-say "[y-or-n-p answered y] %s" prompt) t))

;; An interactive Emacs activates the installed packages (eglot from ELPA or Debian's
;; elpa-eglot, on Emacs 28) before it reads init.el; batch Emacs does not, so do it here.
(package-activate-all)
(load (expand-file-name "eglot-init.el" smoke-dir) nil t)
(smoke-say "Emacs %s, eglot from %s, idlc on PATH: %s" emacs-version
           (file-name-directory (locate-library "eglot")) (executable-find "idlc"))

(defun smoke-main ()
 (let ((b (find-file (expand-file-name "b.idl" smoke-ws))))
  (switch-to-buffer b)                  ; eglot answers hover only for a shown buffer
  (smoke-say "major mode of b.idl: %s" major-mode)
  ;; eglot-ensure connects from `post-command-hook', i.e. after the command that opened the
  ;; file; batch mode has no command loop, so run that hook once as it would.
  (run-hooks 'post-command-hook)
  (unless (smoke-check "eglot connected"
                       (smoke-wait (lambda () (and (eglot-current-server)
                                                   (jsonrpc-running-p (eglot-current-server))))))
    (kill-emacs 1))
  (smoke-say "eglot loaded: %s; server: %s" (featurep 'eglot)
             (plist-get (eglot--server-info (eglot-current-server)) :name))

  ;; 1. Diagnostics, as flymake shows them.
  (smoke-check "flymake has diagnostics" (smoke-wait #'flymake-diagnostics))
  (smoke-say "--- flymake diagnostics of b.idl")
  (dolist (line (smoke-diagnostics)) (smoke-say "%s" line))
  (smoke-check "E0101 on Proflie reported"
               (cl-some (lambda (d) (string-match-p "unknown type `Proflie`" (flymake-diagnostic-text d)))
                        (flymake-diagnostics)))

  ;; 2. Hover on the use of Profile (eglot's eldoc hover function).
  (smoke-goto "Profile {" 1)
  (let (hover)
    (eglot-hover-eldoc-function (lambda (info &rest _) (setq hover (or info ""))))
    (smoke-wait (lambda () hover))
    (smoke-say "--- hover on `Profile' (b.idl line %d)\n%s" (line-number-at-pos) hover)
    (smoke-check "hover shows the record, where it is declared and its docs"
                 (and hover (string-match-p "record" hover)
                      (string-match-p "declared in `a.idl`" hover)
                      (string-match-p "A person's public profile" hover))))

  ;; 3. Go to definition: M-. (xref-find-definitions) on the same name.
  (smoke-goto "Profile {" 1)
  (let ((this-command 'xref-find-definitions))
    (call-interactively #'xref-find-definitions))
  (smoke-say "--- M-. on `Profile' lands in %s line %d column %d: %S" (buffer-name)
             (line-number-at-pos) (current-column)
             (buffer-substring-no-properties (line-beginning-position) (line-end-position)))
  (smoke-check "definition is in a.idl on `type Profile'"
               (and (equal (buffer-name) "a.idl")
                    (looking-at-p "Profile")))
  (switch-to-buffer b)

  ;; 4. Formatting: M-x eglot-format-buffer.
  (eglot-format-buffer)
  (smoke-say "--- b.idl after eglot-format-buffer\n%s" (smoke-buffer-text "b.idl"))
  (smoke-check "the over-indented member is re-indented"
               (string-match-p "^  operation fetch id \"directory:fetch\" : atom-ref<Note> -> Profile"
                               (smoke-buffer-text "b.idl")))

  ;; eglot 1.9 tells the server of edits (here the formatting) from an idle timer, after
  ;; `eglot-send-changes-idle-time' (0.5 s), and a code action or rename does not send them
  ;; first.  Batch Emacs is never idle, so do what that timer does after each edit; without
  ;; it the server is asked about a position in the text as it was before the edit.
  (eglot--signal-textDocument/didChange)

  ;; 5. Quick fix: M-x eglot-code-action-quickfix on the misspelling, once flymake shows it
  ;; again after the formatting (eglot sends flymake's diagnostics there with the request).
  (smoke-goto "Proflie" 1)
  (smoke-check "flymake shows the misspelling again after the formatting"
               (smoke-wait (lambda () (flymake-diagnostics (point) (+ (point) 7)))))
  ;; What `C-u M-x eglot-code-actions RET quickfix' does.  (eglot 1.9's own
  ;; `eglot-code-action-quickfix' calls `eglot-code-actions' without its INTERACTIVE
  ;; argument, so it applies nothing; later eglot versions fixed that.)
  (apply #'eglot-code-actions (append (eglot--region-bounds) '("quickfix" t)))
  (smoke-say "--- line 3 of b.idl after the quickfix code action on `Proflie'\n%s"
             (buffer-substring-no-properties (line-beginning-position) (line-end-position)))
  (smoke-check "the misspelling is replaced"
               (string-match-p "-> Profile { call id \"directory:lookup:call\""
                               (smoke-buffer-text "b.idl")))
  (eglot--signal-textDocument/didChange)
  (smoke-check "flymake diagnostics are cleared"
               (smoke-wait (lambda () (null (flymake-diagnostics)))))

  ;; 6. Rename: M-x eglot-rename on Profile, to Portrait, across both files.
  (smoke-goto "Profile {" 2)
  (eglot-rename "Portrait")
  (smoke-say "--- after eglot-rename Profile -> Portrait\n== a.idl\n%s== b.idl\n%s"
             (smoke-buffer-text "a.idl") (smoke-buffer-text "b.idl"))
  (smoke-check "renamed in both files"
               (let ((case-fold-search nil))
                 (and (string-match-p "type Portrait = record" (smoke-buffer-text "a.idl"))
                      (string-match-p "-> Portrait { call id \"directory:lookup:call\""
                                      (smoke-buffer-text "b.idl"))
                      (string-match-p "-> Portrait { call id \"directory:fetch:call\""
                                      (smoke-buffer-text "b.idl"))
                      (not (string-match-p "Profile" (smoke-buffer-text "a.idl")))
                      (not (string-match-p "Profile" (smoke-buffer-text "b.idl"))))))
  (dolist (file '("a.idl" "b.idl"))
    (with-current-buffer (find-buffer-visiting (expand-file-name file smoke-ws))
      (eglot--signal-textDocument/didChange)))
  (accept-process-output nil 1)         ; what the server says after the rename: nothing
  (smoke-check "no diagnostics after the rename" (null (flymake-diagnostics)))
  (dolist (line (smoke-diagnostics)) (smoke-say "%s" line))

  (ignore-errors (eglot-shutdown (eglot-current-server)))))

(condition-case err
    (smoke-main)
  (error (smoke-check (format "no error in the checks: %S" err) nil)))
;; SMOKE_EVENTS=FILE keeps eglot's log of every LSP message, for looking into a failure.
(let ((events (get-buffer (format "*EGLOT (%s/(idl-mode)) events*"
                                  (file-name-nondirectory (directory-file-name smoke-ws))))))
  (when (and events (getenv "SMOKE_EVENTS"))
    (with-current-buffer events
      (write-region nil nil (expand-file-name (getenv "SMOKE_EVENTS")) nil 'quiet))))
(smoke-say "eglot: %s" (if (zerop smoke-failures) "all checks passed"
                         (format "%d check(s) FAILED" smoke-failures)))
(kill-emacs (if (zerop smoke-failures) 0 1))
