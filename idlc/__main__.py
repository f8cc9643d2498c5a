from idlc.checking import main

main()
