// Command driver runs one rocketmq-client-go v2 push consumer for rmqplan's live tests
// (tests/cluster/go_consumers.py), answering the commands RmqDriver.java answers, one JSON object a line:
//
//	start            -> {"event":"started","client_id":...} or {"event":"start_failed","error":...}
//	stable N MS      -> {"event":"stable"|"timeout","client_id":...,"rounds":...,"queues":[[topic,broker,id]...]}
//	queues           -> the same with "event":"queues"
//	stop             -> {"event":"stopped"}
//
// Arguments: namesrv=ADDR group=G strategy=AVG|AVG_BY_CIRCLE|CONSISTENT_HASH|MACHINE_ROOM|MACHINE_ROOM_NEARBY
// vnodes=N idcs=ROOM,ROOM instance=NAME unit=UNIT sub=TOPIC:EXPRESSION (repeated) rebalance_ms=MS.
//
// What the consumer holds is what its strategy last returned for each topic (doBalance hands that to
// updateProcessQueueTable): the driver wraps the client's own strategy function and records each call, and its
// currentCID is the client id the client reports. A rebalance round is a call for every subscribed topic; the
// client rebalances every 20 s, so the driver asks it for one every rebalance_ms as well.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/rlog"
)

type tracker struct {
	mu       sync.Mutex
	held     map[string][]string // topic -> "topic\tbroker\tid" of its last share
	calls    map[string]int64
	clientID string
	idSeen   chan struct{}
}

func (t *tracker) wrap(inner consumer.AllocateStrategy) consumer.AllocateStrategy {
	return func(group, cid string, mqAll []*primitive.MessageQueue, cidAll []string) []*primitive.MessageQueue {
		share := inner(group, cid, mqAll, cidAll)
		topic := ""
		if len(mqAll) > 0 {
			topic = mqAll[0].Topic
		}
		keys := make([]string, 0, len(share))
		for _, mq := range share {
			keys = append(keys, fmt.Sprintf("%s\t%s\t%d", mq.Topic, mq.BrokerName, mq.QueueId))
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		t.held[topic] = keys
		t.calls[topic]++
		if t.clientID == "" {
			t.clientID = cid
			close(t.idSeen)
		}
		return share
	}
}

func (t *tracker) snapshot() (string, []string, map[string]int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var all []string
	for _, keys := range t.held {
		all = append(all, keys...)
	}
	sort.Strings(all)
	calls := map[string]int64{}
	for k, v := range t.calls {
		calls[k] = v
	}
	return t.clientID, all, calls
}

func (t *tracker) report(event string, rounds int64) string {
	cid, held, _ := t.snapshot()
	queues := [][]interface{}{}
	for _, key := range held {
		p := strings.Split(key, "\t")
		id, _ := strconv.Atoi(p[2])
		queues = append(queues, []interface{}{p[0], p[1], id})
	}
	out, _ := json.Marshal(map[string]interface{}{"event": event, "client_id": cid, "rounds": rounds,
		"queues": queues, "thrown": map[string]string{}})
	return string(out)
}

// stable waits until the held queues stayed the same for `rounds` calls of the strategy for every topic.
func (t *tracker) stable(rounds int64, timeout time.Duration) string {
	deadline := time.Now().Add(timeout)
	_, last, since := t.snapshot()
	for {
		time.Sleep(50 * time.Millisecond)
		_, now, calls := t.snapshot()
		if strings.Join(now, "\n") != strings.Join(last, "\n") {
			last, since = now, calls
			continue
		}
		seen := int64(-1)
		for topic, n := range calls {
			if d := n - since[topic]; seen < 0 || d < seen {
				seen = d
			}
		}
		if seen >= rounds {
			return t.report("stable", seen)
		}
		if time.Now().After(deadline) {
			return t.report("timeout", seen)
		}
	}
}

func say(line string) {
	fmt.Println(line)
}

func strategyOf(args map[string]string) consumer.AllocateStrategy {
	switch args["strategy"] {
	case "", "AVG":
		return consumer.AllocateByAveragely
	case "AVG_BY_CIRCLE":
		return consumer.AllocateByAveragelyCircle
	case "MACHINE_ROOM_NEARBY":
		return consumer.AllocateByMachineNearby
	case "MACHINE_ROOM":
		return consumer.AllocateByMachineRoom(strings.Split(args["idcs"], ","))
	case "CONSISTENT_HASH":
		nodes, err := strconv.Atoi(args["vnodes"])
		if err != nil {
			nodes = 10
		}
		return consumer.AllocateByConsistentHash(nodes)
	}
	fmt.Fprintf(os.Stderr, "driver: unknown strategy %q\n", args["strategy"])
	os.Exit(2)
	return nil
}

func main() {
	args, subs := map[string]string{}, map[string]string{}
	for _, a := range os.Args[1:] {
		k, v, _ := strings.Cut(a, "=")
		if k == "sub" {
			topic, expression, _ := strings.Cut(v, ":")
			subs[topic] = expression
		} else {
			args[k] = v
		}
	}
	rlog.SetLogLevel("error")
	t := &tracker{held: map[string][]string{}, calls: map[string]int64{}, idSeen: make(chan struct{})}
	opts := []consumer.Option{
		consumer.WithGroupName(args["group"]),
		consumer.WithNameServer([]string{args["namesrv"]}),
		consumer.WithConsumerModel(consumer.Clustering),
		consumer.WithStrategy(t.wrap(strategyOf(args))),
	}
	if args["instance"] != "" {
		opts = append(opts, consumer.WithInstance(args["instance"]))
	}
	if args["unit"] != "" {
		opts = append(opts, consumer.WithUnitName(args["unit"]))
	}
	c, err := rocketmq.NewPushConsumer(opts...)
	say(`{"event":"ready"}`)
	if err != nil {
		say(fmt.Sprintf(`{"event":"start_failed","error":%q}`, err.Error()))
		return
	}
	for topic, expression := range subs {
		err := c.Subscribe(topic, consumer.MessageSelector{Type: consumer.TAG, Expression: expression},
			func(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
				return consumer.ConsumeSuccess, nil
			})
		if err != nil {
			say(fmt.Sprintf(`{"event":"start_failed","error":%q}`, err.Error()))
			return
		}
	}
	every, _ := strconv.Atoi(args["rebalance_ms"])
	started := make(chan struct{})
	if every > 0 {
		go func() {
			<-started
			for range time.Tick(time.Duration(every) * time.Millisecond) {
				if r, ok := c.(interface{ Rebalance() }); ok {
					r.Rebalance()
				}
			}
		}()
	}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		words := strings.Fields(in.Text())
		if len(words) == 0 {
			continue
		}
		switch words[0] {
		case "start":
			if err := c.Start(); err != nil {
				say(fmt.Sprintf(`{"event":"start_failed","error":%q}`, err.Error()))
				continue
			}
			close(started)
			select {
			case <-t.idSeen:
				cid, _, _ := t.snapshot()
				out, _ := json.Marshal(map[string]interface{}{"event": "started", "client_id": cid, "attempts": 1})
				say(string(out))
			case <-time.After(120 * time.Second):
				say(`{"event":"start_failed","error":"no rebalance in 120 s"}`)
			}
		case "stable":
			rounds, _ := strconv.ParseInt(words[1], 10, 64)
			ms, _ := strconv.ParseInt(words[2], 10, 64)
			say(t.stable(rounds, time.Duration(ms)*time.Millisecond))
		case "queues":
			say(t.report("queues", 0))
		case "stop":
			_ = c.Shutdown()
			say(`{"event":"stopped"}`)
			return
		}
	}
}
