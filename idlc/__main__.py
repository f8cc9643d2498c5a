from idlc.cli import main

main()
