"""Consumers defined as Spring XML beans of the client classes (`rmqlint.frontends.spring_xml`): a Spring Boot service
that imports a legacy bean file, its properties, placeholders and listener bean judged by the same rules as Java
setters; near misses (a profiled section, an abstract parent, a bounded orderly consumer, XML that is not a bean
file) stay quiet; hostile XML (entity expansion, external entities, deep nesting, malformed or oversized files) is
one RMQ900 note and the rest of the project is still linted."""

from __future__ import annotations

from rmqlint.engine import LintOptions, lint
from rmqlint.rules._examples import line_of
from tests.lint.test_engine_fixtures import write_project

RES = "orders/src/main/resources"
JAVA = "orders/src/main/java/com/acme/orders"
XML_PATH = f"{RES}/spring/mq-consumer.xml"

MQ_XML = """\
<?xml version="1.0" encoding="UTF-8"?>
<beans xmlns="http://www.springframework.org/schema/beans"
       xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
       xmlns:p="http://www.springframework.org/schema/p"
       xsi:schemaLocation="http://www.springframework.org/schema/beans
                           http://www.springframework.org/schema/beans/spring-beans.xsd">

    <bean id="orderListener" class="com.acme.orders.OrderListener"/>

    <!-- Shared client settings -->
    <bean id="baseConsumer" abstract="true" class="org.apache.rocketmq.client.consumer.DefaultMQPushConsumer">
        <property name="namesrvAddr" value="${orders.mq.name-server}"/>
        <property name="consumeThreadMin" value="${orders.mq.thread-min:20}"/>
    </bean>

    <bean id="orderConsumer" parent="baseConsumer" init-method="start" destroy-method="shutdown">
        <constructor-arg value="${orders.mq.group:order_consumer}"/>
        <property name="instanceName" value="orders-node"/>
        <property name="consumeThreadMax">
            <value>64</value>
        </property>
        <property name="messageListener" ref="orderListener"/>
        <property name="subscription">
            <map>
                <entry key="Orders" value="Paid || Refunded"/>
            </map>
        </property>
    </bean>

    <beans profile="dev">
        <bean id="devConsumer" class="org.apache.rocketmq.client.consumer.DefaultMQPushConsumer"
              p:consumerGroup="order_consumer" p:instanceName="dev-node" p:messageListener-ref="orderListener"/>
    </beans>
</beans>
"""

LISTENER = """\
package com.acme.orders;

import java.util.List;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyContext;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.common.message.MessageExt;

public class OrderListener implements MessageListenerOrderly {
    @Override
    public ConsumeOrderlyStatus consumeMessage(List<MessageExt> msgs, ConsumeOrderlyContext context) {
        for (MessageExt msg : msgs) {
            if (msg.getBody().length == 0) {
                return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
            }
        }
        return ConsumeOrderlyStatus.SUCCESS;
    }
}
"""

APPLICATION = """\
package com.acme.orders;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.ImportResource;

@SpringBootApplication
@ImportResource("classpath:spring/mq-consumer.xml")
public class OrdersApplication {
    public static void main(String[] args) {
        SpringApplication.run(OrdersApplication.class, args);
    }
}
"""

PROPERTIES = "orders.mq.name-server=10.0.0.1:9876,10.0.0.2:9876\norders.mq.thread-min=16\n"


def project(**changes) -> dict[str, str | bytes]:
    files = {XML_PATH: MQ_XML, f"{JAVA}/OrderListener.java": LISTENER, f"{JAVA}/OrdersApplication.java": APPLICATION,
             f"{RES}/application.properties": PROPERTIES, f"{RES}/logback-spring.xml": "<configuration/>\n"}
    files.update(changes)
    return files


def findings(root, files):
    return lint(LintOptions(paths=[write_project(root, files)], use_cache=False)).findings


def test_a_consumer_bean_is_judged_as_the_java_client_it_configures(tmp_path):
    found = findings(tmp_path, project())
    assert sorted((f.code, f.location.path, f.location.line) for f in found) == [
        ("RMQ001", XML_PATH, line_of(MQ_XML, '"instanceName"')),
        ("RMQ005", XML_PATH, line_of(MQ_XML, '"consumeThreadMax"')),
        ("RMQ006", XML_PATH, line_of(MQ_XML, 'id="orderConsumer"')),
        ("RMQ008", XML_PATH, line_of(MQ_XML, '"namesrvAddr"')),  # inherited from the abstract parent
    ]
    by_code = {f.code: f for f in found}
    assert 'group "order_consumer"' in by_code["RMQ001"].message
    # The parent's minimum, bound from the application's configuration, named in the message.
    assert "consumeThreadMax 64 is above consumeThreadMin 16" in by_code["RMQ005"].message
    assert f"{RES}/application.properties:2" in by_code["RMQ005"].message
    assert "10.0.0.1:9876,10.0.0.2:9876" in by_code["RMQ008"].message


def test_near_misses_stay_quiet(tmp_path):
    quiet = (MQ_XML.replace('value="orders-node"', 'value="${random.uuid}"')
             .replace("<value>64</value>", "<value>${orders.mq.thread-min:20}</value>")
             .replace('<property name="messageListener"', '<property name="maxReconsumeTimes" value="16"/>\n'
                      '        <property name="messageListener"'))
    properties = PROPERTIES.replace(",", ";")
    assert findings(tmp_path / "a", project(**{XML_PATH: quiet, f"{RES}/application.properties": properties})) == []
    # Not a Spring bean file: a MyBatis mapper that mentions the class in its SQL; the same bean in a test resource
    # is test code (quiet by default).
    mapper = ('<?xml version="1.0"?>\n<mapper namespace="com.acme.Audit">\n  <select id="q">select '
              "'DefaultMQPushConsumer' from dual</select>\n</mapper>\n")
    files = project(**{XML_PATH: mapper, "orders/src/test/resources/spring/mq-consumer.xml": MQ_XML,
                       f"{RES}/application.properties": properties})
    assert findings(tmp_path / "b", files) == []


def test_a_dtd_based_bean_file_is_read(tmp_path):
    legacy = MQ_XML.replace('<beans xmlns="http://www.springframework.org/schema/beans"', '<!DOCTYPE beans PUBLIC '
                            '"-//SPRING//DTD BEAN 2.0//EN" "http://www.springframework.org/dtd/spring-beans-2.0.dtd">'
                            '\n<beans xmlns:dummy="urn:x"', 1).replace(
        "xmlns:p=", "xmlns:q=").replace('p:consumerGroup="order_consumer" p:instanceName="dev-node" '
                                        'p:messageListener-ref="orderListener"', "")
    codes = sorted(f.code for f in findings(tmp_path, project(**{XML_PATH: legacy})))
    assert codes == ["RMQ001", "RMQ005", "RMQ006", "RMQ008"]


BILLION_LAUGHS = """\
<?xml version="1.0"?>
<!DOCTYPE beans [
  <!ENTITY lol "lol">
  <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<beans xmlns="http://www.springframework.org/schema/beans">
  <bean class="org.apache.rocketmq.client.consumer.DefaultMQPushConsumer">
    <property name="instanceName" value="&lol3;"/>
  </bean>
</beans>
"""

EXTERNAL = """\
<?xml version="1.0"?>
<!DOCTYPE beans [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<beans xmlns="http://www.springframework.org/schema/beans">
  <bean class="org.apache.rocketmq.client.consumer.DefaultMQPushConsumer">
    <property name="instanceName" value="&secret;"/>
  </bean>
</beans>
"""


def test_hostile_xml_is_one_note_and_the_rest_is_still_linted(tmp_path):
    deep = ('<beans xmlns="http://www.springframework.org/schema/beans"><bean class="DefaultMQPushConsumer">'
            + "<property>" * 10_000 + "</property>" * 10_000 + "</bean></beans>\n")
    broken = MQ_XML.replace("</beans>\n</beans>", "</beans>\n")
    big = MQ_XML.replace("<!-- Shared client settings -->", "<!-- " + "x" * (1024 * 1024) + " -->")
    cases = {"laughs": (BILLION_LAUGHS, 3, "entity declarations are not read"),
             "external": (EXTERNAL, 2, "entity declarations are not read"),
             "deep": (deep, 1, "nested more than 256 deep"),
             "broken": (broken, broken.count("\n") + 1, "not well-formed XML"),  # the root never closes
             "big": (big, 1, "over the 1 MB limit for spring-xml files")}
    for name, (text, line, said) in cases.items():
        other = f"{RES}/spring/other-consumer.xml"
        files = project(**{other: text})
        found = findings(tmp_path / name, files)
        notes = [f for f in found if f.code == "RMQ900"]
        assert [(f.location.path, f.location.line) for f in notes] == [(other, line)], name
        assert said in notes[0].message, (name, notes[0].message)
        # The project's own bean file is still judged.
        assert sorted(f.code for f in found if f.code != "RMQ900") == ["RMQ001", "RMQ005", "RMQ006", "RMQ008"], name
