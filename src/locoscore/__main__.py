from locoscore.cli import main

main()
