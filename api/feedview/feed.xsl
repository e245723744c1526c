<?xml version="1.0" encoding="utf-8"?>
<!-- The readable page of Dynamo's feeds (RSS 1.0, RSS 2.0, Atom), for a
     browser: what the feed is, how to subscribe, and its items. Everything
     from the feed is written as text (no disable-output-escaping), links
     only when they are http(s). docs/API.md "Feeds in a browser". -->
<xsl:stylesheet version="1.0"
  xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
  xmlns:atom="http://www.w3.org/2005/Atom"
  xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
  xmlns:rss1="http://purl.org/rss/1.0/"
  xmlns:dc="http://purl.org/dc/elements/1.1/"
  exclude-result-prefixes="atom rdf rss1 dc">
<xsl:output method="html" encoding="utf-8" doctype-system="about:legacy-compat" indent="no"/>

<xsl:variable name="pi" select="string(/processing-instruction('dynamo-feed'))"/>
<xsl:variable name="href" select="substring-before(substring-after($pi, 'href=&quot;'), '&quot;')"/>
<xsl:variable name="format" select="substring-before(substring-after($pi, 'format=&quot;'), '&quot;')"/>
<xsl:variable name="title" select="normalize-space((/rss/channel/title | /rdf:RDF/rss1:channel/rss1:title | /atom:feed/atom:title)[1])"/>
<xsl:variable name="about" select="string((/rss/channel/description | /rdf:RDF/rss1:channel/rss1:description | /atom:feed/atom:subtitle)[1])"/>
<xsl:variable name="site" select="normalize-space((/rss/channel/link | /rdf:RDF/rss1:channel/rss1:link | /atom:feed/atom:link[@rel='alternate' or not(@rel)]/@href)[1])"/>
<xsl:variable name="items" select="/rss/channel/item | /rdf:RDF/rss1:item | /atom:feed/atom:entry"/>

<xsl:template match="/">
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<title><xsl:value-of select="$title"/> · a feed</title>
<link rel="stylesheet" href="/feed.css"/>
</head>
<body>
<main>
<p class="kind">A feed<xsl:if test="$format != ''"> in <xsl:value-of select="$format"/></xsl:if>, served by Dynamo</p>
<h1><xsl:choose><xsl:when test="$title != ''"><xsl:value-of select="$title"/></xsl:when><xsl:otherwise>Untitled feed</xsl:otherwise></xsl:choose></h1>
<xsl:if test="normalize-space($about) != ''"><p class="about"><xsl:call-template name="plain"><xsl:with-param name="s" select="substring($about, 1, 1500)"/></xsl:call-template></p></xsl:if>
<section class="subscribe" aria-labelledby="subscribe-h">
<h2 id="subscribe-h">How to subscribe</h2>
<p>This page is a feed: a feed reader (NetNewsWire, Feedly, Thunderbird, Inoreader, …) checks it for new items. Copy its address into your reader:</p>
<p class="url"><code><xsl:value-of select="$href"/></code></p>
<p>Your browser shows the feed as this page; feed readers get the feed itself, unchanged.<xsl:if test="starts-with($site, 'http://') or starts-with($site, 'https://')"> The site: <a href="{$site}"><xsl:value-of select="$site"/></a>.</xsl:if> All of Dynamo's sources: <a href="/ui/">its web interface</a>.</p>
</section>
<section aria-labelledby="items-h">
<h2 id="items-h"><xsl:value-of select="count($items)"/> item<xsl:if test="count($items) != 1">s</xsl:if></h2>
<ol class="items">
<xsl:for-each select="$items">
<xsl:variable name="t" select="normalize-space((title | rss1:title | atom:title)[1])"/>
<xsl:variable name="l" select="normalize-space((link | rss1:link | atom:link[@rel='alternate' or not(@rel)]/@href)[1])"/>
<xsl:variable name="d" select="normalize-space((pubDate | dc:date | atom:updated | atom:published)[1])"/>
<xsl:variable name="text" select="string((description | rss1:description | atom:summary | atom:content)[1])"/>
<li>
<h3><xsl:choose>
<xsl:when test="starts-with($l, 'http://') or starts-with($l, 'https://')"><a href="{$l}" rel="nofollow noopener noreferrer"><xsl:call-template name="title"><xsl:with-param name="t" select="$t"/></xsl:call-template></a></xsl:when>
<xsl:otherwise><xsl:call-template name="title"><xsl:with-param name="t" select="$t"/></xsl:call-template></xsl:otherwise>
</xsl:choose></h3>
<xsl:if test="$d != ''"><p class="date"><xsl:call-template name="date"><xsl:with-param name="d" select="$d"/></xsl:call-template></p></xsl:if>
<xsl:if test="normalize-space($text) != ''"><p class="text"><xsl:call-template name="plain"><xsl:with-param name="s" select="substring($text, 1, 1500)"/></xsl:call-template></p></xsl:if>
</li>
</xsl:for-each>
</ol>
</section>
</main>
</body>
</html>
</xsl:template>

<xsl:template name="title">
<xsl:param name="t"/>
<xsl:choose><xsl:when test="$t != ''"><xsl:value-of select="$t"/></xsl:when><xsl:otherwise>(untitled)</xsl:otherwise></xsl:choose>
</xsl:template>

<!-- date writes an RFC 3339 date (Atom's, dc:date) as people read it,
     "2026-11-24 04:51 UTC" (or its offset, "+01:00"), the exact value in
     <time datetime>; RSS 2.0's RFC 822 dates are readable as they are. -->
<xsl:template name="date">
<xsl:param name="d"/>
<xsl:choose>
<xsl:when test="string-length($d) &gt;= 16 and substring($d, 11, 1) = 'T'">
<time datetime="{$d}"><xsl:value-of select="concat(substring($d, 1, 10), ' ', substring($d, 12, 5), ' ')"/><xsl:choose>
<xsl:when test="substring($d, string-length($d)) = 'Z' or substring($d, string-length($d)) = 'z'">UTC</xsl:when>
<xsl:otherwise><xsl:value-of select="substring($d, string-length($d) - 5)"/></xsl:otherwise>
</xsl:choose></time>
</xsl:when>
<xsl:otherwise><xsl:value-of select="$d"/></xsl:otherwise>
</xsl:choose>
</xsl:template>

<!-- plain writes HTML as its text: the markup between < and > left out,
     at most 300 tags deep (the text is cut to 1500 characters first). -->
<xsl:template name="plain">
<xsl:param name="s"/>
<xsl:param name="n" select="0"/>
<xsl:choose>
<xsl:when test="$n &gt; 300"/>
<xsl:when test="contains($s, '&lt;')">
<xsl:call-template name="entities"><xsl:with-param name="s" select="substring-before($s, '&lt;')"/></xsl:call-template>
<xsl:text> </xsl:text>
<xsl:call-template name="plain">
<xsl:with-param name="s" select="substring-after(substring-after($s, '&lt;'), '&gt;')"/>
<xsl:with-param name="n" select="$n + 1"/>
</xsl:call-template>
</xsl:when>
<xsl:otherwise><xsl:call-template name="entities"><xsl:with-param name="s" select="$s"/></xsl:call-template></xsl:otherwise>
</xsl:choose>
</xsl:template>

<!-- entities writes HTML text with the character references feeds use
     most decoded (XSLT 1.0 cannot decode every one), pair by pair from
     $entityPairs, &amp; last so that "&amp;lt;" stays "&lt;" as the source
     meant. What it writes is text, escaped again by the output. -->
<xsl:variable name="entityPairs">&amp;lt;=&lt;|&amp;gt;=&gt;|&amp;quot;="|&amp;#34;="|&amp;#39;='|&amp;apos;='|&amp;nbsp;=&#160;|&amp;#160;=&#160;|&amp;#8216;=&#8216;|&amp;#8217;=&#8217;|&amp;#8220;=&#8220;|&amp;#8221;=&#8221;|&amp;#8211;=&#8211;|&amp;#8212;=&#8212;|&amp;#8230;=&#8230;|&amp;amp;=&amp;|</xsl:variable>
<xsl:template name="entities">
<xsl:param name="s"/>
<xsl:param name="pairs" select="string($entityPairs)"/>
<xsl:choose>
<xsl:when test="$pairs = '' or not(contains($s, '&amp;'))"><xsl:value-of select="$s"/></xsl:when>
<xsl:otherwise>
<xsl:variable name="pair" select="substring-before($pairs, '|')"/>
<xsl:call-template name="entities">
<xsl:with-param name="s"><xsl:call-template name="replace">
<xsl:with-param name="s" select="$s"/>
<xsl:with-param name="from" select="substring-before($pair, '=')"/>
<xsl:with-param name="to" select="substring-after($pair, '=')"/>
</xsl:call-template></xsl:with-param>
<xsl:with-param name="pairs" select="substring-after($pairs, '|')"/>
</xsl:call-template>
</xsl:otherwise>
</xsl:choose>
</xsl:template>

<!-- replace writes s with every from replaced by to. -->
<xsl:template name="replace">
<xsl:param name="s"/>
<xsl:param name="from"/>
<xsl:param name="to"/>
<xsl:choose>
<xsl:when test="contains($s, $from)">
<xsl:value-of select="concat(substring-before($s, $from), $to)"/>
<xsl:call-template name="replace">
<xsl:with-param name="s" select="substring-after($s, $from)"/>
<xsl:with-param name="from" select="$from"/>
<xsl:with-param name="to" select="$to"/>
</xsl:call-template>
</xsl:when>
<xsl:otherwise><xsl:value-of select="$s"/></xsl:otherwise>
</xsl:choose>
</xsl:template>
</xsl:stylesheet>
