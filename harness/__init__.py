"""What the tests and the benchmarks both use, so that neither imports the other: RocketMQ's Java side for the live
tests and the strategy benchmark (`rocketmq_java`: the jars Maven fetched, sources compiled against them), a fake
name server and broker over the real protocol (`fake_rocketmq`, and its 2,000-group cluster for `make soak`),
headless Chromium driving the report page (`browser`), and a hand-written fleet the size of a company's
(`real_fleet`). Not part of the installed distribution."""
