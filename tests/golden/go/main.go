// Command golden computes rebalance cases with rocketmq-client-go's own strategy functions
// (consumer.AllocateBy*), for rmqplan's golden data of Go processes.
//
// It reads JSON Lines cases on standard input (the fields of tests/golden/allocation-cases.jsonl: id, strategy,
// queues, client_ids, virtual_nodes, consumer_idcs, config_queues; other fields are ignored) and writes one line
// per case: {"id": ..., "allocation": {clientId: [[topic, broker, queueId], ...] | {"error": "panic"}}} for every
// distinct client id. The queues are a set (as a route gives them) and both lists are sorted as
// defaultConsumer.doBalance sorts them before it calls the strategy.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
)

type queue [3]interface{}

type input struct {
	ID           interface{}       `json:"id"`
	Strategy     string            `json:"strategy"`
	Queues       []json.RawMessage `json:"queues"`
	ClientIDs    []string          `json:"client_ids"`
	VirtualNodes *int              `json:"virtual_nodes"`
	ConsumerIdcs []string          `json:"consumer_idcs"`
	ConfigQueues []json.RawMessage `json:"config_queues"`
}

func parseQueue(raw json.RawMessage) *primitive.MessageQueue {
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil || len(parts) != 3 {
		fail("a queue must be [topic, broker, queueId]: %s", raw)
	}
	mq := &primitive.MessageQueue{}
	if json.Unmarshal(parts[0], &mq.Topic) != nil || json.Unmarshal(parts[1], &mq.BrokerName) != nil ||
		json.Unmarshal(parts[2], &mq.QueueId) != nil {
		fail("a queue must be [topic, broker, queueId]: %s", raw)
	}
	return mq
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "golden: "+format+"\n", args...)
	os.Exit(2)
}

func strategyOf(c input) consumer.AllocateStrategy {
	switch c.Strategy {
	case "AVG":
		return consumer.AllocateByAveragely
	case "AVG_BY_CIRCLE":
		return consumer.AllocateByAveragelyCircle
	case "MACHINE_ROOM_NEARBY":
		return consumer.AllocateByMachineNearby
	case "MACHINE_ROOM":
		return consumer.AllocateByMachineRoom(c.ConsumerIdcs)
	case "CONSISTENT_HASH":
		nodes := 10
		if c.VirtualNodes != nil {
			nodes = *c.VirtualNodes
		}
		return consumer.AllocateByConsistentHash(nodes)
	case "CONFIG":
		list := make([]*primitive.MessageQueue, 0, len(c.ConfigQueues))
		for _, raw := range c.ConfigQueues {
			list = append(list, parseQueue(raw))
		}
		return consumer.AllocateByConfig(list)
	}
	fail("unknown strategy %q", c.Strategy)
	return nil
}

// allocate calls the strategy as doBalance does; a panic is the case's answer, not the program's end.
func allocate(strategy consumer.AllocateStrategy, cid string, mqAll []*primitive.MessageQueue,
	cidAll []string) (share []*primitive.MessageQueue, panicked bool) {
	defer func() {
		if recover() != nil {
			panicked = true
		}
	}()
	return strategy("group", cid, mqAll, cidAll), false
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<30)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		line := strings.TrimSpace(in.Text())
		if line == "" {
			continue
		}
		var c input
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			fail("invalid case: %v", err)
		}
		seen := map[primitive.MessageQueue]bool{}
		mqAll := []*primitive.MessageQueue{}
		for _, raw := range c.Queues {
			mq := parseQueue(raw)
			if !seen[*mq] {
				seen[*mq] = true
				mqAll = append(mqAll, mq)
			}
		}
		cidAll := append([]string{}, c.ClientIDs...)
		// defaultConsumer.doBalance's order
		sort.Strings(cidAll)
		sort.SliceStable(mqAll, func(i, j int) bool {
			v := strings.Compare(mqAll[i].Topic, mqAll[j].Topic)
			if v != 0 {
				return v < 0
			}
			v = strings.Compare(mqAll[i].BrokerName, mqAll[j].BrokerName)
			if v != 0 {
				return v < 0
			}
			return (mqAll[i].QueueId - mqAll[j].QueueId) < 0
		})
		strategy := strategyOf(c)
		allocation := map[string]interface{}{}
		for _, cid := range cidAll {
			if _, done := allocation[cid]; done {
				continue
			}
			share, panicked := allocate(strategy, cid, mqAll, cidAll)
			if panicked {
				allocation[cid] = map[string]string{"error": "panic"}
				continue
			}
			queues := make([]queue, 0, len(share))
			for _, mq := range share {
				queues = append(queues, queue{mq.Topic, mq.BrokerName, mq.QueueId})
			}
			allocation[cid] = queues
		}
		line2, err := json.Marshal(map[string]interface{}{"id": c.ID, "allocation": allocation})
		if err != nil {
			fail("%v", err)
		}
		out.Write(line2)
		out.WriteString("\n")
	}
	if err := in.Err(); err != nil {
		fail("reading the cases: %v", err)
	}
}
