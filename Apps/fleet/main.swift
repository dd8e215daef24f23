import FleetCLI

await Fleet.main()
